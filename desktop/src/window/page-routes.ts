import Fs from 'fs';
import Path from 'path';

import type { ServerRoute } from '@hapi/hapi';

/** The page's files, kept as they are in the package's source (the compiled code is in dist/src/window). */
export const assetsDir = Path.join(__dirname, '../../../src/window/assets');

const contentTypes: Record<string, string> = {
    '.html': 'text/html; charset=utf-8',
    '.js': 'text/javascript; charset=utf-8',
    '.css': 'text/css; charset=utf-8'
};

/** The window's page at `/` and its scripts and style sheet at `/assets/<name>`: only the files of the assets directory. */
export function pageRoutes(): ServerRoute[] {

    const files = new Map(Fs.readdirSync(assetsDir)
        .filter((name) => contentTypes[Path.extname(name)])
        .map((name) => [name, { body: Fs.readFileSync(Path.join(assetsDir, name)), type: contentTypes[Path.extname(name)] }]));

    return [
        {
            method: 'GET',
            path: '/',
            handler: (request, h) => h.response(files.get('index.html')!.body).type(files.get('index.html')!.type)
        },
        {
            method: 'GET',
            path: '/assets/{name}',
            handler: (request, h) => {

                const name = request.params.name as string;
                const file = files.get(name);
                if (!file || name === 'index.html') {
                    return h.response({ error: 'not_found', message: 'No such file.' }).code(404);
                }

                return h.response(file.body).type(file.type);
            }
        }
    ];
}
