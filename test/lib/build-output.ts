import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { projectRoot } from '../../lib/config';
import { removeStaleBuildOutputs, staleBuildOutputs } from '../../lib/build-output';
import { scratchDirectory } from '../helpers/server';

export const lab = Lab.script();
const { describe, it } = lab;

/** Writes each file, its directories made, under `root`. */
function writeFiles(root: string, files: string[]): void {

    for (const file of files) {
        Fs.mkdirSync(Path.dirname(Path.join(root, file)), { recursive: true });
        Fs.writeFileSync(Path.join(root, file), '');
    }
}

describe('staleBuildOutputs()', () => {

    it('names the compiled files and maps whose source is gone, at any depth, and nothing else', () => {

        const root = scratchDirectory();
        writeFiles(root, ['lib/kept.ts', 'test/lib/kept.ts']);
        writeFiles(root, [
            'dist/lib/kept.js', 'dist/lib/kept.js.map', 'dist/test/lib/kept.js',
            'dist/lib/removed.js', 'dist/lib/removed.js.map', 'dist/test/lib/deep/removed.js',
            'dist/tsconfig.tsbuildinfo', 'dist/lib/notes.txt'
        ]);

        const stale = staleBuildOutputs(root, Path.join(root, 'dist')).map((file) => Path.relative(root, file)).sort();
        expect(stale).to.equal(['dist/lib/removed.js', 'dist/lib/removed.js.map', 'dist/test/lib/deep/removed.js']);
    });

    it('finds nothing where nothing was built yet', () => {

        expect(staleBuildOutputs(scratchDirectory(), Path.join(scratchDirectory(), 'dist'))).to.equal([]);
    });
});

describe('removeStaleBuildOutputs()', () => {

    it('removes the stale files only, so lab no longer loads a removed test', () => {

        const root = scratchDirectory();
        writeFiles(root, ['test/kept.ts', 'dist/test/kept.js', 'dist/test/removed.js', 'dist/test/removed.js.map']);

        expect(removeStaleBuildOutputs(root, Path.join(root, 'dist'))).to.have.length(2);
        expect(Fs.readdirSync(Path.join(root, 'dist', 'test'))).to.equal(['kept.js']);
    });
});

describe('the build', () => {

    it('compiles incrementally, its state kept in dist (deleting dist rebuilds all), and removes stale output after', () => {

        const { scripts } = JSON.parse(Fs.readFileSync(Path.join(projectRoot, 'package.json'), 'utf8'));
        expect(scripts.build).to.equal('tsc -b tsconfig.json && node dist/bin/prune-build-output.js');
        for (const script of ['start', 'pretest', 'prepare']) {
            expect(scripts[script] as string).to.startWith('npm run build');
        }

        const { compilerOptions } = JSON.parse(Fs.readFileSync(Path.join(projectRoot, 'tsconfig.json'), 'utf8'));
        expect(compilerOptions).to.include({ incremental: true, outDir: 'dist', tsBuildInfoFile: 'dist/tsconfig.tsbuildinfo' });
    });
});
