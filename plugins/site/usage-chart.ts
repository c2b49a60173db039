/*
 * Stacked bar charts as SVG markup, drawn on the server: readable without JavaScript,
 * with a <title> and <desc> for screen readers and a legend inside the picture.
 * Every text that comes from data (key names) is escaped here.
 */

export interface ChartSeries {
    name: string;
    values: number[];
}

export interface StackedBarChart {
    title: string;
    description: string;
    /** One label per bar (`2026-05-01`). */
    labels: string[];
    series: ChartSeries[];
}

/** Distinct in colour and in lightness, so neighbours in a stack stay apart in greyscale too. */
export const chartColours = ['#2da44e', '#0969da', '#d4a72c', '#cf222e', '#8250df', '#8c959f', '#bf3989', '#1b7c83'];

const width = 760;
const height = 280;
const plot = { left: 56, right: 16, top: 40, bottom: 32 };
const integer = new Intl.NumberFormat('en-US');

export function escapeXml(text: string): string {

    return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** A round step of 1, 2 or 5 times a power of ten, at least 1: four steps reach `value`. */
function tickStep(value: number): number {

    const rough = Math.max(value / 4, 1);
    const power = 10 ** Math.floor(Math.log10(rough));
    return [1, 2, 5, 10].map((step) => step * power).find((candidate) => candidate >= rough)!;
}

/** `May 1` for `2026-05-01`. */
function shortDay(label: string): string {

    const date = new Date(`${label}T00:00:00Z`);
    return Number.isNaN(date.getTime()) ? label : date.toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

export function stackedBarChart(chart: StackedBarChart): string {

    const totals = chart.labels.map((_, i) => chart.series.reduce((sum, series) => sum + (series.values[i] ?? 0), 0));
    const step = tickStep(Math.max(...totals, 0));
    const top = step * 4;
    const plotWidth = width - plot.left - plot.right;
    const plotHeight = height - plot.top - plot.bottom;
    const slot = plotWidth / Math.max(chart.labels.length, 1);
    const barWidth = Math.max(2, slot * 0.7);
    const y = (value: number) => plot.top + plotHeight - (value / top) * plotHeight;
    const parts: string[] = [];

    for (let tick = 0; tick <= 4; ++tick) {
        const value = step * tick;
        parts.push(`<line x1="${plot.left}" x2="${width - plot.right}" y1="${y(value)}" y2="${y(value)}" stroke="${tick === 0 ? '#8c959f' : '#e6eaef'}"/>`);
        parts.push(`<text x="${plot.left - 8}" y="${y(value) + 4}" text-anchor="end" font-size="11" fill="#59636e">${integer.format(value)}</text>`);
    }

    chart.labels.forEach((label, i) => {

        const x = plot.left + i * slot + (slot - barWidth) / 2;
        let base = 0;
        chart.series.forEach((series, s) => {

            const value = series.values[i] ?? 0;
            if (value > 0) {
                parts.push(`<rect x="${x.toFixed(1)}" y="${y(base + value).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${(y(base) - y(base + value)).toFixed(1)}" fill="${chartColours[s % chartColours.length]}"><title>${escapeXml(`${label} · ${series.name}: ${integer.format(value)}`)}</title></rect>`);
                base += value;
            }
        });

        // A date under every fifth bar, and under the last: enough to read, never crowded.
        if (i % 5 === 0 || i === chart.labels.length - 1) {
            parts.push(`<text x="${(x + barWidth / 2).toFixed(1)}" y="${height - plot.bottom + 16}" text-anchor="middle" font-size="11" fill="#59636e">${escapeXml(shortDay(label))}</text>`);
        }
    });

    let legendX = plot.left;
    chart.series.forEach((series, s) => {

        const name = series.name.length > 24 ? `${series.name.slice(0, 23)}…` : series.name;
        parts.push(`<rect x="${legendX}" y="12" width="10" height="10" rx="2" fill="${chartColours[s % chartColours.length]}"/>`);
        parts.push(`<text x="${legendX + 15}" y="21" font-size="12" fill="#1f2328">${escapeXml(name)}</text>`);
        legendX += 28 + name.length * 7;
    });

    const id = `chart-${Math.random().toString(36).slice(2, 10)}`;
    return `<svg class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${id}-title ${id}-desc" xmlns="http://www.w3.org/2000/svg" font-family="-apple-system, BlinkMacSystemFont, 'Segoe UI', Helvetica, Arial, sans-serif">` +
        `<title id="${id}-title">${escapeXml(chart.title)}</title><desc id="${id}-desc">${escapeXml(chart.description)}</desc>${parts.join('')}</svg>`;
}
