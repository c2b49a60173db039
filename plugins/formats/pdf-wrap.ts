/*
 * Line breaking for the text pdfkit does not lay out itself (right-to-left text, text of several
 * fonts; pdf-bidi.ts): its lines must be known before each is put in visual order and drawn run by
 * run, and pdfkit keeps its own lines to itself.
 */

/** The lines of a text, as offsets into it: `end` leaves out the spaces where a line broke. */
export interface LineRange {
    start: number;
    end: number;
}

/** A text's width as it will be drawn. */
export type Measure = (text: string) => number;

/**
 * A character with what draws with it: its combining marks (emoji variation selectors among them),
 * emoji skin-tone modifiers and tags, a zero-width joiner and the emoji it joins on (👩‍🌾).
 * A line breaks inside a word, a font changes (pdf-fonts.ts) and a run is reversed (pdf-bidi.ts)
 * only between them. A surrogate pair is one character.
 */
export const characterClusters = /[^](?:[\p{M}\u{1F3FB}-\u{1F3FF}\u{E0020}-\u{E007F}]|\u200D\p{Extended_Pictographic}?)*/gu;

/** Where `text` may break between `start` and `end`, `end` included. */
function breakOffsets(text: string, start: number, end: number): number[] {

    const offsets = [...text.slice(start, end).matchAll(characterClusters)].map((cluster) => start + cluster.index + cluster[0].length);
    return offsets.length > 0 ? offsets : [end];
}

/** The last of `offsets` that `fits` (a run of them from the first does), or the first when none does: a line always moves on. */
function lastFitting(offsets: number[], fits: (offset: number) => boolean): number {

    let low = 0;
    let high = offsets.length - 1;
    while (low < high) {
        const middle = Math.ceil((low + high) / 2);
        if (fits(offsets[middle])) {
            low = middle;
        }
        else {
            high = middle - 1;
        }
    }

    return offsets[low];
}

/**
 * Greedy breaking at spaces, inside a word only when it alone is wider than a line; `\n` ends a
 * paragraph. It stops once there are more than `maxLines`.
 */
function breakLines(text: string, width: number, maxLines: number, widthOf: Measure): LineRange[] {

    const lines: LineRange[] = [];
    let paragraphStart = 0;
    for (const paragraph of text.split('\n')) {
        let line: LineRange | undefined;
        let lineWidth = 0;
        for (const word of paragraph.matchAll(/[^ ]+/g)) {
            if (lines.length > maxLines) {
                return lines;
            }

            let start = paragraphStart + word.index;
            const end = start + word[0].length;
            if (line) {
                const longer = lineWidth + widthOf(text.slice(line.end, end));
                if (longer <= width) {
                    line.end = end;
                    lineWidth = longer;
                    continue;
                }

                lines.push(line);
            }

            let wordWidth = widthOf(text.slice(start, end));
            while (wordWidth > width && lines.length <= maxLines) {
                const from = start;
                const cut = lastFitting(breakOffsets(text, from, end), (offset) => widthOf(text.slice(from, offset)) <= width);
                if (cut === end) {
                    break;          // one character wider than a line: it is a line of its own
                }

                lines.push({ start, end: cut });
                start = cut;
                wordWidth = widthOf(text.slice(start, end));
            }

            line = { start, end };
            lineWidth = wordWidth;
        }

        lines.push(line ?? { start: paragraphStart, end: paragraphStart });
        paragraphStart += paragraph.length + 1;
    }

    return lines;
}

/**
 * `text` broken into lines at most `width` wide, at most `maxLines` of them: when there were more,
 * the last shown is cut to make room for `…`. Returns the text the lines index (the cut one ends
 * with the `…`).
 */
export function wrapLines(text: string, width: number, maxLines: number, widthOf: Measure): { text: string; lines: LineRange[] } {

    const lines = breakLines(text, width, maxLines, widthOf);
    if (lines.length <= maxLines) {
        return { text, lines };
    }

    const last = lines[maxLines - 1];
    const cutLine = (end: number) => `${text.slice(last.start, end).replace(/ +$/, '')}…`;
    const end = lastFitting([last.start, ...breakOffsets(text, last.start, last.end)], (offset) => widthOf(cutLine(offset)) <= width);
    const shown = text.slice(0, last.start) + cutLine(end);
    return { text: shown, lines: [...lines.slice(0, maxLines - 1), { start: last.start, end: shown.length }] };
}
