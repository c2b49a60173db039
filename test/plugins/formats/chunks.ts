import { Readable } from 'stream';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { inLargerChunks } from '../../../plugins/formats/chunks';

export const lab = Lab.script();
const { describe, it } = lab;

/** The chunks as the joiner pushes them ('data' events: async iteration would read them joined). */
function chunksOf(readable: Readable): Promise<Buffer[]> {

    const chunks: Buffer[] = [];
    readable.on('data', (chunk: Buffer) => chunks.push(chunk));
    return new Promise((resolve, reject) => readable.on('end', () => resolve(chunks)).on('error', reject));
}

describe('inLargerChunks()', () => {

    it('joins text rows into writes of about 64 KiB, encoded as UTF-8', async () => {

        const rows = Array.from({ length: 3000 }, (_, i) => `${i},Åsa Ødegård 𝄞 "家族"\r\n`);
        const chunks = await chunksOf(inLargerChunks(Readable.from(rows)));

        expect(Buffer.concat(chunks).toString('utf8')).to.equal(rows.join(''));
        expect(chunks.length).to.be.within(2, 4);
        for (const chunk of chunks.slice(0, -1)) {
            expect(chunk.length).to.be.at.least(64 * 1024);
        }
    });

    it('keeps the order of text and bytes mixed', async () => {

        const parts = ['%PDF-', Buffer.from([0xff, 0x00, 0xfe]), 'é', Buffer.from('end')];
        const chunks = await chunksOf(inLargerChunks(Readable.from(parts)));
        expect(Buffer.concat(chunks)).to.equal(Buffer.concat([Buffer.from('%PDF-'), Buffer.from([0xff, 0x00, 0xfe]), Buffer.from('é'), Buffer.from('end')]));
    });

    it('fails when its source fails', async () => {

        const failing = Readable.from((async function* () {

            yield 'a row\r\n';
            await Promise.resolve();
            throw new Error('the database went away');
        })());

        await expect(chunksOf(inLargerChunks(failing))).to.reject('the database went away');
    });
});
