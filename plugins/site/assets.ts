import Crypto from 'crypto';
import Fs from 'fs';
import Path from 'path';

import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';

import { projectRoot } from '../../lib/config';

const assetTypes: Record<string, string> = {
    'site.css': 'text/css; charset=utf-8',
    'site.js': 'text/javascript; charset=utf-8'
};

/** The stylesheet and the optional script (copy buttons, forms sent once), read once; pages work without the script. */
export function assetRoutes(): ServerRoute[] {

    const assets = new Map(Object.entries(assetTypes).map(([name, type]) => {

        const body = Fs.readFileSync(Path.join(projectRoot, 'plugins', 'site', 'assets', name));
        return [name, { body, type, etag: Crypto.createHash('sha256').update(body).digest('base64url').slice(0, 27) }];
    }));

    return [{
        method: 'GET',
        path: '/site/assets/{name}',
        options: {
            auth: false,
            validate: { params: Joi.object({ name: Joi.string().valid(...assets.keys()).required() }) },
            cache: { privacy: 'public', expiresIn: 3600 * 1000 },
            handler(request, h) {

                const asset = assets.get(request.params.name as string)!;
                return h.response(asset.body).type(asset.type).etag(asset.etag);
            }
        }
    }];
}
