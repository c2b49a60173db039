import Fs from 'fs';
import Path from 'path';

import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';
import Ts from 'typescript';

import { projectRoot } from '../../lib/config';

export const lab = Lab.script();
const { describe, it } = lab;

const folders = ['bin', 'lib', 'gateway', 'plugins', 'models'];

/** Every source file of the service (tests and benchmarks are clients of it), as a path from the project root. */
function sourceFiles(folder: string): string[] {

    return Fs.readdirSync(Path.join(projectRoot, folder), { withFileTypes: true }).flatMap((entry) => {

        const path = `${folder}/${entry.name}`;
        return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith('.ts') ? [path] : [];
    });
}

/** The project's files `file` imports, type-only imports and re-exports included. */
function importsOf(file: string, files: Set<string>): string[] {

    const { importedFiles } = Ts.preProcessFile(Fs.readFileSync(Path.join(projectRoot, file), 'utf8'), true, true);
    return importedFiles.filter(({ fileName }) => fileName.startsWith('.')).flatMap(({ fileName }) => {

        const target = Path.posix.join(Path.posix.dirname(file), fileName);
        const resolved = [`${target}.ts`, `${target}/index.ts`].find((candidate) => files.has(candidate));
        return resolved ? [resolved] : [];
    });
}

const files = folders.flatMap(sourceFiles);
const graph = new Map(files.map((file) => [file, importsOf(file, new Set(files))]));
const edges = [...graph].flatMap(([from, targets]) => targets.map((to) => ({ from, to })));

/** `plugins/<name>` of a plugin's file. */
const pluginOf = (file: string) => (file.startsWith('plugins/') ? file.split('/').slice(0, 2).join('/') : undefined);

// The composition root wires every part together and the CLI runs it: they stand above all the layers.
const aboveLayers = (file: string) => file === 'lib/deployment.ts' || file.startsWith('lib/cli/') || file.startsWith('bin/');

/** The import cycles: Tarjan's strongly connected components of more than one file, or a file importing itself. */
function cycles(): string[][] {

    const index = new Map<string, number>();
    const lowLink = new Map<string, number>();
    const stack: string[] = [];
    const found: string[][] = [];
    const visit = (file: string) => {

        index.set(file, index.size);
        lowLink.set(file, index.get(file)!);
        stack.push(file);
        for (const target of graph.get(file)!) {
            if (!index.has(target)) {
                visit(target);
                lowLink.set(file, Math.min(lowLink.get(file)!, lowLink.get(target)!));
            }
            else if (stack.includes(target)) {
                lowLink.set(file, Math.min(lowLink.get(file)!, index.get(target)!));
            }
        }

        if (lowLink.get(file) === index.get(file)) {
            const component = stack.splice(stack.indexOf(file));
            if (component.length > 1 || graph.get(file)!.includes(file)) {
                found.push(component.sort());
            }
        }
    };

    for (const file of files) {
        if (!index.has(file)) {
            visit(file);
        }
    }

    return found;
}

describe('Dependencies', () => {

    it('reads the imports of the sources', () => {

        expect(graph.get('lib/deployment.ts')).to.include(['plugins/records/index.ts', 'lib/config.ts']);
        // A type-only import counts as one.
        expect(graph.get('plugins/records/context.ts')).to.include('lib/logger.ts');
    });

    it('point down: neither lib/ nor the gateway imports a plugin', () => {

        const upward = edges.filter(({ from, to }) => !aboveLayers(from) && /^(lib|gateway)\//.test(from) && to.startsWith('plugins/'));
        expect(upward.map(({ from, to }) => `${from} → ${to}`)).to.equal([]);
    });

    it('keep each plugin to its own files: what plugins share is in lib/ or offered through hapi', () => {

        const across = edges.filter(({ from, to }) => pluginOf(from) && pluginOf(to) && pluginOf(from) !== pluginOf(to));
        expect(across.map(({ from, to }) => `${from} → ${to}`)).to.equal([]);
    });

    it('form no cycle, type-only imports included', () => {

        expect(cycles()).to.equal([]);
    });

    it('keep the desktop client a client: desktop/ imports nothing of the service, only its HTTP API', () => {

        const clientFiles = ['desktop/src', 'desktop/bin'].flatMap(sourceFiles);
        expect(clientFiles).to.include('desktop/bin/family-records-desktop.ts');
        const outside = clientFiles.flatMap((file) => {

            const { importedFiles } = Ts.preProcessFile(Fs.readFileSync(Path.join(projectRoot, file), 'utf8'), true, true);
            return importedFiles
                .filter(({ fileName }) => fileName.startsWith('.') && !Path.posix.join(Path.posix.dirname(file), fileName).startsWith('desktop/'))
                .map(({ fileName }) => `${file} → ${fileName}`);
        });

        expect(outside).to.equal([]);
    });
});
