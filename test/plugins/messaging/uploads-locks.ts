import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { connectedDevice, familyMember } from '../../helpers/devices';
import { keptLog } from '../../helpers/kept-log';
import { PrivateRedis, redisServerBinary } from '../../helpers/private-redis';
import { testServer, testVariant } from '../../helpers/server';
import { tusRequest, uploadIdOf, uploadPolicies } from '../../helpers/uploads';
import { sampleFile } from '../files/fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

// A Redis of the test's own, so it can be stopped and started again without touching anyone else's.
describe(`/messaging/v1/uploads when the Redis of their locks fails (${testVariant} + a private Redis)`, { skip: !redisServerBinary }, () => {

    let redis: PrivateRedis;
    let server: Server;
    const outageLog = keptLog([/^\[redis,error\] /]);

    before(async () => {

        redis = await PrivateRedis.start();
        server = await testServer({ policiesDir: uploadPolicies(), log: outageLog.log, env: { REDIS_URL: redis.url, REDIS_PREFIX: 'upload-locks-test:' } });
    });

    after(async () => {

        await server.stop();
        await redis.stop();
    });

    it('answers 503 service_unavailable with Retry-After while Redis is down, and takes the upload once it is back', async () => {

        const { access_token: token } = await connectedDevice(server, await familyMember(server));
        const file = sampleFile('png', 2000);
        const created = await tusRequest(server, token, 'POST', '/messaging/v1/uploads', { 'upload-length': String(file.length) });
        const url = `/messaging/v1/uploads/${uploadIdOf(created.headers.location as string)}`;
        const patch = () => tusRequest(server, token, 'PATCH', url, { 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, file);

        await redis.stop();
        const refused = await patch();
        expect(refused.result).to.include({ statusCode: 503, code: 'service_unavailable' });
        expect(refused.headers['retry-after']).to.equal('5');
        expect(refused.headers['tus-resumable']).to.equal('1.0.0');

        await redis.start();
        const deadline = Date.now() + 10_000;
        while (!server.app.services.redis!.isReady && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, 50));
        }

        const taken = await patch();
        expect(taken.statusCode).to.equal(204);
        expect(taken.headers['upload-offset']).to.equal('2000');
    });
});
