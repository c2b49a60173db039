import Fs from 'fs';

import * as Fontkit from 'fontkit';

export type FontWeight = 'regular' | 'bold';

interface FontFace {
    bytes: Buffer;
    /** The member of a font collection (TTC) to draw with; undefined for a single font. */
    postscriptName?: string;
    font: Fontkit.Font;
}

function openFace(bytes: Buffer, postscriptName?: string): FontFace {

    const opened = Fontkit.create(bytes, postscriptName);
    if ('fonts' in opened) {
        throw new Error('a font collection needs the name of one of its fonts');
    }

    return { bytes, postscriptName, font: opened };
}

/** The fonts of a file: one, or every member of a collection (TTC/OTC). */
function facesOf(bytes: Buffer): FontFace[] {

    const opened = Fontkit.create(bytes);
    return 'fonts' in opened ? opened.fonts.map((member) => ({ bytes, postscriptName: member.postscriptName, font: member })) : [{ bytes, font: opened }];
}

/**
 * Which member of a CJK collection draws a text: Han characters take a different shape in each
 * region, so Japanese text (it has kana) gets the Japanese forms, Korean (Hangul) the Korean ones,
 * and other text Simplified Chinese. Noto Sans CJK and Source Han Sans name their members so
 * (`NotoSansCJKjp-Regular`); a collection named otherwise draws with its first proportional member.
 */
function memberFor(faces: readonly FontFace[], text: string): FontFace {

    const region = /[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]/.test(text) ? 'jp' : /[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]/.test(text) ? 'kr' : 'sc';
    const proportional = faces.filter((face) => !/mono/i.test(face.postscriptName ?? ''));
    return proportional.find((face) => new RegExp(`${region}-`, 'i').test(face.postscriptName ?? '')) ?? proportional[0] ?? faces[0];
}

/** Characters that draw nothing (white space, controls, format marks): no font needs a glyph for them. */
const drawsNothing = (codePoint: number) => codePoint <= 0x20 || (codePoint >= 0x7f && codePoint <= 0xa0) || (codePoint >= 0x2000 && codePoint <= 0x200f) ||
    (codePoint >= 0x2028 && codePoint <= 0x202f) || (codePoint >= 0x2060 && codePoint <= 0x206f) || codePoint === 0x3000 || codePoint === 0xfeff;

function missingGlyphs(text: string, covers: (codePoint: number) => boolean): number {

    let missing = 0;
    for (let index = 0; index < text.length; ++index) {
        const codePoint = text.codePointAt(index)!;
        if (codePoint > 0xffff) {
            ++index;
        }

        if (!drawsNothing(codePoint) && !covers(codePoint)) {
            ++missing;
        }
    }

    return missing;
}

/** The primary font's characters as a bitmap: it is asked about every character of every cell. */
function coverageOf(font: Fontkit.Font): (codePoint: number) => boolean {

    const bits = new Uint8Array(0x110000 >> 3);
    for (const codePoint of font.characterSet) {
        bits[codePoint >> 3] |= 1 << (codePoint & 7);
    }

    return (codePoint) => (bits[codePoint >> 3] & (1 << (codePoint & 7))) !== 0;
}

/** One fallback font file, read on first need (a CJK collection is about 20 MB), with its bold sibling when there is one. */
class FallbackFont {

    private faces?: Record<FontWeight, FontFace[]>;

    constructor(readonly path: string) { }

    /** The face to draw `text` in, in `weight` (the regular face when the file has no bold sibling). */
    faceFor(text: string, weight: FontWeight): FontFace {

        this.faces ??= this.read();
        return memberFor(this.faces[weight], text);
    }

    private read(): Record<FontWeight, FontFace[]> {

        const regular = facesOf(Fs.readFileSync(this.path));
        const boldPath = this.path.replace(/-Regular(\.\w+)$/, '-Bold$1');
        const bold = boldPath !== this.path && Fs.existsSync(boldPath) ? facesOf(Fs.readFileSync(boldPath)) : regular;
        return { regular, bold };
    }
}

/**
 * The fonts PDF exports draw with: DejaVu Sans (from npm: Latin with every accent, Greek,
 * Cyrillic, Hebrew, Arabic; pdfkit's built-in fonts stop at WinAnsi), then fallback fonts for
 * what it has no glyphs for (Chinese, Japanese, Korean). Each is read on first need and kept
 * for every later export of the deployment; pdfkit embeds only the glyphs a document uses.
 */
export class PdfFontSet {

    private readonly fallbacks: FallbackFont[];
    private primary?: Record<FontWeight, { face: FontFace; covers: (codePoint: number) => boolean }>;

    /** `fallbackPaths`: font files (TTF, OTF, or TTC/OTC collections), in the order they are tried. */
    constructor(fallbackPaths: readonly string[]) {

        this.fallbacks = fallbackPaths.map((path) => new FallbackFont(path));
    }

    /** The face that draws the most of `text`: the primary font unless a fallback misses fewer glyphs. */
    faceFor(text: string, weight: FontWeight): FontFace {

        this.primary ??= this.openPrimary();
        const primary = this.primary[weight];
        let best = { face: primary.face, missing: missingGlyphs(text, primary.covers) };
        for (const fallback of this.fallbacks) {
            if (best.missing === 0) {
                break;
            }

            const face = fallback.faceFor(text, weight);
            const missing = missingGlyphs(text, (codePoint) => face.font.hasGlyphForCodePoint(codePoint));
            if (missing < best.missing) {
                best = { face, missing };
            }
        }

        return best.face;
    }

    private openPrimary() {

        const open = (path: string) => {

            const face = openFace(Fs.readFileSync(path));
            return { face, covers: coverageOf(face.font) };
        };

        return { regular: open(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')), bold: open(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf')) };
    }
}

/** Checks that each file is a font fontkit reads: a wrong PDF_FALLBACK_FONTS stops start-up, not an export. */
export function fallbackFontProblem(path: string): string | undefined {

    try {
        facesOf(Fs.readFileSync(path));
        return undefined;
    }
    catch (error) {
        return `${path}: ${(error as Error).message}`;
    }
}

/**
 * The fonts of one PDF document: each face is registered with pdfkit the first time a text needs
 * it, so pdfkit embeds only the fonts the document draws with.
 */
export class DocumentFonts {

    private readonly names = new Map<FontFace, string>();

    constructor(private readonly doc: PDFKit.PDFDocument, private readonly fonts: PdfFontSet) { }

    /** The name of the registered font that draws `text` best, for `doc.font()`. */
    fontFor(text: string, weight: FontWeight): string {

        const face = this.fonts.faceFor(text, weight);
        let name = this.names.get(face);
        if (name === undefined) {
            name = `font-${this.names.size}`;
            this.doc.registerFont(name, face.bytes, face.postscriptName as string);
            this.names.set(face, name);
        }

        return name;
    }

    /** Selects the font for `text` on the document: `fonts.use(text, 'bold').fontSize(12).text(text)`. */
    use(text: string, weight: FontWeight): PDFKit.PDFDocument {

        return this.doc.font(this.fontFor(text, weight));
    }
}
