import type { Server } from '@hapi/hapi';

import { pathOf } from '../plugins/files/fixtures';

/** A demo gallery item or document: its row, and the bytes the API serves for it. */
export interface ServedDemoFile {
    resource: 'gallery' | 'documents';
    row: { id: string; media_type: string; size_bytes: number; sha256: string };
    served: Buffer;
}

/**
 * Every gallery item and document of a family, with the bytes a client gets: a gallery item's
 * signed `url`, a document's `/file` redirect. Fails on any other answer than the file.
 */
export async function servedDemoFiles(server: Server, key: string, familyLongId: string): Promise<ServedDemoFile[]> {

    const authorization = `Bearer ${key}`;
    const fetchFile = async (url: string) => {

        const response = await server.inject(url);
        if (response.statusCode !== 200) {
            throw new Error(`${url} answered ${response.statusCode}: ${response.payload}`);
        }

        return response.rawPayload;
    };

    const files: ServedDemoFile[] = [];
    for (const resource of ['gallery', 'documents'] as const) {
        const rows = await server.app.services.models.records[resource].findAll({ where: { family_long_id: familyLongId }, raw: true }) as unknown as ServedDemoFile['row'][];
        for (const raw of rows) {
            const row = { ...raw, size_bytes: Number(raw.size_bytes) };          // PostgreSQL's BIGINT comes as text
            const response = await server.inject({ url: `/api/v1/${resource}/${row.id}${resource === 'documents' ? '/file' : ''}`, headers: { authorization } });
            const url = resource === 'gallery' ? (response.result as { data: { url?: string } }).data.url : response.statusCode === 302 ? response.headers.location as string : undefined;
            if (!url) {
                throw new Error(`${resource} ${row.id} has no file to fetch: ${response.statusCode} ${response.payload}`);
            }

            files.push({ resource, row, served: await fetchFile(pathOf(url)) });
        }
    }

    return files;
}
