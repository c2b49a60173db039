/**
 * User text inside a sentence where no markup can go (a page's <title>, an SVG chart's text):
 * between U+2068 FIRST STRONG ISOLATE and U+2069 POP DIRECTIONAL ISOLATE, so a right-to-left name
 * takes its own direction without reordering the words around it, as <bdi> does in markup.
 */
export const isolated = (text: string): string => `\u2068${text}\u2069`;
