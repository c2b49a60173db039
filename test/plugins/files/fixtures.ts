/*
 * Shared helpers of the files tests: small files of each type (random bytes after the
 * type's signature, so no two tests share a blob), uploads, and where blobs live on disk.
 */
import Crypto from 'crypto';
import Fs from 'fs';
import Path from 'path';

import type { Server, ServerInjectResponse } from '@hapi/hapi';

import { contentKey } from '../../../lib/storage';
import type { FamilyFixture } from '../../helpers/server';

const signatures = {
    png: Buffer.from('89504E470D0A1A0A', 'hex'),
    jpeg: Buffer.from('FFD8FFE0', 'hex'),
    gif: Buffer.from('GIF89a'),
    pdf: Buffer.from('%PDF-1.7\n')
};

/** A file of `kind` that is `size` bytes long, its signature followed by random bytes. */
export function sampleFile(kind: keyof typeof signatures, size = 64): Buffer {

    const signature = signatures[kind];
    return Buffer.concat([signature, Crypto.randomBytes(Math.max(0, size - signature.length))]);
}

/** UTF-8 text of `size` bytes, unique to this call. */
export function sampleText(size = 64): Buffer {

    return Buffer.from(`${Crypto.randomBytes(size).toString('hex')}`.slice(0, size));
}

/** POST /api/v1/<resource> with the file base64-encoded and the given fields. */
export function upload(family: FamilyFixture, resource: 'gallery' | 'documents', file: Buffer, fields: Record<string, unknown> = {}): Promise<ServerInjectResponse> {

    return family.inject('POST', `/api/v1/${resource}`, { title: 'Upload', original_name: 'file.bin', file_base64: file.toString('base64'), ...fields });
}

/** The path of a URL the API returned (test servers listen on port 0, so their public base URL is not where they answer). */
export const pathOf = (url: string) => {

    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
};

/** Where LocalDiskStorage keeps a file with this content. */
export function blobPath(server: Server, content: Buffer): string {

    const sha256 = Crypto.createHash('sha256').update(content).digest('hex');
    return Path.join(server.app.services.config.filesDir, ...contentKey(sha256).split('/'));
}

export const blobExists = (server: Server, content: Buffer) => Fs.existsSync(blobPath(server, content));

export const sha256Of = (content: Buffer) => Crypto.createHash('sha256').update(content).digest('hex');
