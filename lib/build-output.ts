import Fs from 'fs';
import Path from 'path';

/**
 * tsc's incremental build (`tsc -b`) writes only what changed and never deletes: a source file removed
 * or renamed leaves its compiled `.js` (and map) in the output directory, where lab, which loads every
 * file under dist/test, would still run a removed test.
 */

/** The source a compiled file came from, relative to the project: `dist/lib/x.js` and its map from `lib/x.ts`. */
const sourceOf = (relativeOutput: string) => /^(.*)\.js(\.map)?$/.exec(relativeOutput)?.[1];

/** The compiled files under `outDir` whose source under `root` no longer exists. */
export function staleBuildOutputs(root: string, outDir: string): string[] {

    if (!Fs.existsSync(outDir)) {
        return [];
    }

    const outputs = Fs.readdirSync(outDir, { recursive: true, encoding: 'utf8' });
    return outputs
        .filter((output) => {

            const source = sourceOf(output);
            return source !== undefined && !Fs.existsSync(Path.join(root, `${source}.ts`));
        })
        .map((output) => Path.join(outDir, output));
}

/** Removes the stale compiled files (see staleBuildOutputs); returns them. */
export function removeStaleBuildOutputs(root: string, outDir: string): string[] {

    const stale = staleBuildOutputs(root, outDir);
    for (const file of stale) {
        Fs.rmSync(file);
    }

    return stale;
}
