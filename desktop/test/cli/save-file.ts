import Fs from 'fs';
import Os from 'os';
import Path from 'path';

import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { saveWithoutOverwriting } from '../../src/cli/save-file';

export const lab = Lab.script();
const { afterEach, beforeEach, describe, it } = lab;

describe('saving a downloaded file', () => {

    let dir: string;

    beforeEach(async () => {

        dir = await Fs.promises.mkdtemp(Path.join(Os.tmpdir(), 'frd-save-'));
    });

    afterEach(() => Fs.promises.rm(dir, { recursive: true, force: true }));

    it('never replaces a file: the next free "name (n).ext" is taken, and nothing is left aside', async () => {

        Fs.writeFileSync(Path.join(dir, 'photo.png'), 'mine');
        Fs.writeFileSync(Path.join(dir, 'photo (1).png'), 'mine too');

        expect(await saveWithoutOverwriting(dir, 'photo.png', Buffer.from('first'))).to.equal(Path.join(dir, 'photo (2).png'));
        expect(await saveWithoutOverwriting(dir, 'photo.png', Buffer.from('second'))).to.equal(Path.join(dir, 'photo (3).png'));
        expect(await saveWithoutOverwriting(dir, 'notes', Buffer.from('third'))).to.equal(Path.join(dir, 'notes'));
        expect(await saveWithoutOverwriting(dir, 'notes', Buffer.from('fourth'))).to.equal(Path.join(dir, 'notes (1)'));

        expect(Fs.readdirSync(dir).sort()).to.equal(['notes', 'notes (1)', 'photo (1).png', 'photo (2).png', 'photo (3).png', 'photo.png']);
        expect(Fs.readFileSync(Path.join(dir, 'photo.png'), 'utf8')).to.equal('mine');
        expect(Fs.readFileSync(Path.join(dir, 'photo (3).png'), 'utf8')).to.equal('second');
    });

    it('writes only inside the directory, whatever the name the sender gave', async () => {

        for (const [name, saved] of [['../../escape.txt', 'escape.txt'], ['..\\up.txt', 'up.txt'], ['..', 'attachment'], ['bell\u0007.txt', 'bell.txt'], ['/etc/passwd', 'passwd']]) {
            expect(await saveWithoutOverwriting(dir, name, Buffer.from(name))).to.equal(Path.join(dir, saved));
        }

        expect(Fs.readdirSync(dir).sort()).to.equal(['attachment', 'bell.txt', 'escape.txt', 'passwd', 'up.txt']);
        expect(Fs.readdirSync(Path.dirname(dir)).filter((name) => name === 'escape.txt')).to.equal([]);
    });
});
