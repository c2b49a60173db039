import Fs from 'fs';

import * as Fontkit from 'fontkit';

import { characterClusters } from './pdf-wrap';

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

/** Which characters a font has glyphs for. */
type Coverage = (codePoint: number) => boolean;

interface CoveredFace {
    face: FontFace;
    covers: Coverage;
}

const coveredFace = (face: FontFace): CoveredFace => ({ face, covers: (codePoint) => face.font.hasGlyphForCodePoint(codePoint) });

function drawsAll(text: string, covers: Coverage): boolean {

    for (let index = 0; index < text.length; ++index) {
        const codePoint = text.codePointAt(index)!;
        if (codePoint > 0xffff) {
            ++index;
        }

        if (!drawsNothing(codePoint) && !covers(codePoint)) {
            return false;
        }
    }

    return true;
}

/** A piece of a text and the face that draws it. */
export interface FaceRun {
    text: string;
    face: FontFace;
}

/**
 * `text` in runs of one face each. A character, with what draws with it (pdf-wrap.ts), goes to the
 * first face that has all of it, else to the first that has the character itself, else to the
 * primary face (its missing-glyph box). A space goes to the primary face too, as any character it
 * has: a piece's runs never depend on what stands before it, so a line measured word by word
 * (pdf-wrap.ts) is as wide as it is drawn.
 */
function runsByFace(text: string, faces: readonly CoveredFace[]): FaceRun[] {

    const runs: FaceRun[] = [];
    for (const [cluster] of text.matchAll(characterClusters)) {
        const { face } = faces.find(({ covers }) => drawsAll(cluster, covers)) ?? faces.find(({ covers }) => covers(cluster.codePointAt(0)!)) ?? faces[0];
        const last = runs.at(-1);
        if (last?.face === face) {
            last.text += cluster;
        }
        else {
            runs.push({ text: cluster, face });
        }
    }

    return runs;
}

/**
 * The faces that draw a text: `face` alone (the usual case), or, when no face has all of its
 * characters, runs of several (`runsOf` splits any piece of the text), `face` then being the
 * primary one, whose line height and baseline the text keeps.
 */
export interface TextFaces {
    face: FontFace;
    runsOf?: (piece: string) => FaceRun[];
}

/**
 * A fallback draws a whole text only when it has `…` too: pdfkit ends a cell it cuts with one, in
 * the cell's font. Noto Emoji has none (and its space is an emoji wide): emoji are always runs.
 */
const ellipsis = 0x2026;

/** The primary font's characters as a bitmap: it is asked about every character of every cell. */
function coverageOf(font: Fontkit.Font): Coverage {

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
 * Noto Emoji, monochrome (npm @expo-google-fonts/noto-emoji): no other font here has emoji, and
 * colour emoji fonts (CBDT bitmaps, COLR layers) do not draw in pdfkit. Its regular face serves
 * the bold text too: bold text is the document's own (titles, column names).
 */
const emojiFontPath = (): string => require.resolve('@expo-google-fonts/noto-emoji/400Regular/NotoEmoji_400Regular.ttf');

/**
 * The fonts PDF exports draw with: DejaVu Sans (from npm: Latin with every accent, Greek,
 * Cyrillic, Hebrew, Arabic; pdfkit's built-in fonts stop at WinAnsi), then fallback fonts for
 * what it has no glyphs for: Noto Emoji, built in, then those configured (Chinese, Japanese,
 * Korean). Each is read on first need and kept for every later export of the deployment; pdfkit
 * embeds only the glyphs a document uses.
 */
export class PdfFontSet {

    private readonly fallbacks: FallbackFont[];
    private primary?: Record<FontWeight, CoveredFace>;

    /**
     * `fallbackPaths`: font files (TTF, OTF, or TTC/OTC collections), in the order they are tried,
     * after the emoji font: a character both have (⚽, 🅰, 🈁, some forty) takes its emoji form.
     */
    constructor(fallbackPaths: readonly string[]) {

        this.fallbacks = [emojiFontPath(), ...fallbackPaths].map((path) => new FallbackFont(path));
    }

    /**
     * The faces that draw `text`: the primary face when it has all of its characters, else the
     * first fallback that has them all, else runs of several faces (a run of one face when no font
     * has the characters the primary face lacks: it draws them as boxes, as it would alone).
     */
    facesFor(text: string, weight: FontWeight): TextFaces {

        this.primary ??= this.openPrimary();
        const primary = this.primary[weight];
        if (drawsAll(text, primary.covers)) {
            return { face: primary.face };
        }

        const candidates = [primary];
        for (const fallback of this.fallbacks) {
            const candidate = coveredFace(fallback.faceFor(text, weight));
            if (candidate.covers(ellipsis) && drawsAll(text, candidate.covers)) {
                return { face: candidate.face };
            }

            candidates.push(candidate);
        }

        const runsOf = (piece: string) => runsByFace(piece, candidates);
        const runs = runsOf(text);
        return runs.length === 1 && runs[0].face === primary.face ? { face: primary.face } : { face: primary.face, runsOf };
    }

    private openPrimary(): Record<FontWeight, CoveredFace> {

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

/** A piece of a text and the registered font that draws it. */
export interface FontRun {
    text: string;
    font: string;
}

/**
 * How a text is drawn at a size: in `font` alone, by pdfkit's own layout, or, with `runsOf`, in runs
 * of several fonts. Every run sits on `font`'s baseline, `baseline` points below a line's top.
 */
export interface TextFonts {
    font: string;
    baseline: number;
    runsOf?: (piece: string) => FontRun[];
}

/**
 * The fonts of one PDF document: each face is registered with pdfkit the first time a text needs
 * it, so pdfkit embeds only the fonts the document draws with.
 */
export class DocumentFonts {

    private readonly names = new Map<FontFace, string>();

    constructor(private readonly doc: PDFKit.PDFDocument, private readonly fonts: PdfFontSet) { }

    /** The fonts that draw `text` at `size` points. */
    of(text: string, weight: FontWeight, size: number): TextFonts {

        const { face, runsOf } = this.fonts.facesFor(text, weight);
        return {
            font: this.nameOf(face),
            baseline: face.font.ascent / face.font.unitsPerEm * size,
            runsOf: runsOf && ((piece) => runsOf(piece).map((run) => ({ text: run.text, font: this.nameOf(run.face) })))
        };
    }

    /** Selects the font for a text of the document's own, in one font: `fonts.use(title, 'bold').fontSize(12).text(title)`. */
    use(text: string, weight: FontWeight): PDFKit.PDFDocument {

        return this.doc.font(this.nameOf(this.fonts.facesFor(text, weight).face));
    }

    private nameOf(face: FontFace): string {

        let name = this.names.get(face);
        if (name === undefined) {
            name = `font-${this.names.size}`;
            this.doc.registerFont(name, face.bytes, face.postscriptName as string);
            this.names.set(face, name);
        }

        return name;
    }
}
