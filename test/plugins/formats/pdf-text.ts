import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';

/** The text of every page of a PDF, as pdf.js (Mozilla's PDF reader) extracts it: one string per text run. */
export async function pdfPages(bytes: Buffer): Promise<string[][]> {

    const pdf = await pdfjs.getDocument({ data: new Uint8Array(bytes), useSystemFonts: false, isEvalSupported: false }).promise;
    const pages: string[][] = [];
    for (let number = 1; number <= pdf.numPages; number++) {
        const content = await (await pdf.getPage(number)).getTextContent();
        pages.push(content.items.map((item) => ('str' in item ? item.str : '')).filter(Boolean));
    }

    await pdf.destroy();
    return pages;
}
