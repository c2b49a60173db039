import Zlib from 'zlib';

import PDFDocument from 'pdfkit';

/*
 * The demo family's files, made as it is seeded: small but real, so a demo gallery item's
 * `url` shows a picture and a demo document's file opens as a PDF. The same bytes every
 * time: demo families share their blobs, as any equal files do.
 */

const pngSignature = Buffer.from('89504E470D0A1A0A', 'hex');

/** A PNG chunk: its data's length, its type, the data, and the CRC-32 of type and data (PNG §5.3). */
function pngChunk(type: string, data: Buffer): Buffer {

    const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const chunk = Buffer.alloc(8 + typeAndData.length);
    chunk.writeUInt32BE(data.length, 0);
    typeAndData.copy(chunk, 4);
    chunk.writeUInt32BE(Zlib.crc32(typeAndData), 4 + typeAndData.length);
    return chunk;
}

/** An 8-bit RGB PNG whose pixels `colour(x, y)` gives. */
function png(width: number, height: number, colour: (x: number, y: number) => [number, number, number]): Buffer {

    const header = Buffer.alloc(13);
    header.writeUInt32BE(width, 0);
    header.writeUInt32BE(height, 4);
    header.writeUInt8(8, 8);            // bits per sample
    header.writeUInt8(2, 9);            // colour type RGB; compression, filter and interlace methods 0
    const rowBytes = 1 + width * 3;     // each row starts with its filter type, 0 (none)
    const pixels = Buffer.alloc(height * rowBytes);
    for (let y = 0; y < height; ++y) {
        for (let x = 0; x < width; ++x) {
            pixels.set(colour(x, y), y * rowBytes + 1 + x * 3);
        }
    }

    return Buffer.concat([pngSignature, pngChunk('IHDR', header), pngChunk('IDAT', Zlib.deflateSync(pixels)), pngChunk('IEND', Buffer.alloc(0))]);
}

/** An old photograph's look, 160 × 120: sepia sky over darker ground, fading at the edges; `warmth` (0–1) tints it. */
export function demoPhoto(warmth: number): Buffer {

    const width = 160;
    const height = 120;
    return png(width, height, (x, y) => {

        const dx = x / width - 0.5;
        const dy = y / height - 0.5;
        const light = (y < height * 0.6 ? 1 : 0.7) * (1 - 1.6 * (dx * dx + dy * dy));
        return [236, 204 - 24 * warmth, 156 - 48 * warmth].map((channel) => Math.round(channel * light)) as [number, number, number];
    });
}

/** A one-page PDF standing in for a scanned document: its title and date. */
export function demoPdf(title: string, date: string): Promise<Buffer> {

    // A fixed creation date keeps the bytes the same every time (pdfkit would write the current time).
    const doc = new PDFDocument({ size: 'A5', margin: 48, info: { Title: title, Creator: 'Family Records API demo', CreationDate: new Date('2025-01-01T00:00:00Z') } });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    const ended = new Promise<Buffer>((resolve, reject) => doc.on('end', () => resolve(Buffer.concat(chunks))).on('error', reject));

    doc.fontSize(16).text(title).moveDown(0.5);
    doc.fontSize(11).fillColor('#555555').text(date).moveDown();
    doc.fillColor('#000000').text('A sample document of the demo family: in a real family\'s records, the scan of the original.');
    doc.end();
    return ended;
}
