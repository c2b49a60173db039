/** The reference page's whole stylesheet: the page loads nothing else. */
export const referenceStyle = `
:root { color-scheme: light; --ink: #1d2430; --muted: #5b6474; --line: #d9dee7; --tint: #f4f6fa; --accent: #1f5fbf; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #fff; }
header, main, nav { max-width: 72rem; margin: 0 auto; padding: 0 1.5rem; }
header { padding-top: 2rem; }
h1 { font-size: 1.9rem; margin: 0 0 .5rem; }
h1 small { font-size: 1rem; color: var(--muted); font-weight: normal; }
h2 { margin-top: 2.5rem; padding-bottom: .3rem; border-bottom: 2px solid var(--line); }
h3 { margin: 0 0 .5rem; font-size: 1.1rem; word-break: break-all; }
a { color: var(--accent); }
nav ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .4rem 1rem; }
code { font: .9em/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--tint); padding: .05rem .25rem; border-radius: 3px; }
.operation { border: 1px solid var(--line); border-radius: 6px; padding: 1rem 1.25rem; margin: 1.25rem 0; break-inside: avoid; }
.method { display: inline-block; min-width: 4.2rem; text-align: center; border-radius: 4px; padding: .1rem .4rem; margin-right: .5rem; color: #fff; font: bold .85rem/1.4 ui-monospace, monospace; }
.get { background: #1f7a4d; } .post { background: #1f5fbf; } .patch { background: #9a5b00; } .put { background: #6b4fbb; } .delete { background: #b42318; }
.needs { color: var(--muted); }
table { width: 100%; border-collapse: collapse; margin: .5rem 0 1rem; font-size: .92rem; }
th, td { text-align: left; vertical-align: top; padding: .35rem .5rem; border-bottom: 1px solid var(--line); }
th { background: var(--tint); font-weight: 600; }
td:first-child { white-space: nowrap; }
.muted { color: var(--muted); }
footer { max-width: 72rem; margin: 3rem auto 2rem; padding: 0 1.5rem; color: var(--muted); }
@media print {
  nav { display: none; }
  body { font-size: 11pt; }
  a { color: inherit; text-decoration: none; }
  .operation { border-color: #999; }
}
`;
