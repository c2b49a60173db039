import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { recordId } from '../../../lib/ids';
import { answerOnce, deleteExpiredMessagingIdempotencyKeys, type IdempotencyScope } from '../../../lib/messaging/idempotency';
import { testServer } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('messaging idempotency', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(() => server.stop());

    const models = () => server.app.services.models;
    const scope = (fingerprint = 'a'): IdempotencyScope => ({ grantId: 'dev_test', route: 'POST /conversations/{id}/messages', key: recordId('key'), fingerprint });

    it('runs the first request, replays its answer, refuses another body with 422 and a retry while it runs with 409', async () => {

        const first = scope();
        let runs = 0;
        let release!: () => void;
        const running = answerOnce(models(), first, async () => {

            ++runs;
            await new Promise<void>((resolve) => {

                release = resolve;
            });
            return { status: 201, body: { id: 'msg_1' }, headers: { location: '/x' } };
        });

        await new Promise((resolve) => setImmediate(resolve));
        while (!release) {
            await new Promise((resolve) => setImmediate(resolve));
        }

        const during = await expect(answerOnce(models(), first, () => Promise.resolve({ status: 201, body: {} }))).to.reject();
        expect((during as any).output.statusCode).to.equal(409);
        release();
        expect(await running).to.equal({ answer: { status: 201, body: { id: 'msg_1' }, headers: { location: '/x' } }, replayed: false });

        const again = await answerOnce(models(), first, () => Promise.reject(new Error('not run again')));
        expect(again).to.equal({ answer: { status: 201, body: { id: 'msg_1' }, headers: { location: '/x' } }, replayed: true });
        const other = await expect(answerOnce(models(), { ...first, fingerprint: 'b' }, () => Promise.resolve({ status: 201, body: {} }))).to.reject();
        expect((other as any).output.payload.code).to.equal('idempotency_key_reused');
        expect(runs).to.equal(1);

        // The same key on another route, or from another device, is another request.
        expect((await answerOnce(models(), { ...first, route: 'POST /outbox' }, () => Promise.resolve({ status: 200, body: {} }))).replayed).to.be.false();
        expect((await answerOnce(models(), { ...first, grantId: 'dev_other' }, () => Promise.resolve({ status: 200, body: {} }))).replayed).to.be.false();
    });

    it('gives the key back when the write fails, and lets a retry take over a key abandoned by a request that died', async () => {

        const failing = scope();
        await expect(answerOnce(models(), failing, () => Promise.reject(new Error('refused')))).to.reject('refused');
        expect((await answerOnce(models(), failing, () => Promise.resolve({ status: 201, body: { ok: true } }))).replayed).to.be.false();

        const abandoned = scope();
        const takenLongAgo = new Date(Date.now() - 120_000);
        await models().MessagingIdempotencyKey.create({ grant_id: abandoned.grantId, route: abandoned.route, idempotency_key: abandoned.key, fingerprint: 'a', created_at: takenLongAgo });
        const takenOver = await answerOnce(models(), abandoned, () => Promise.resolve({ status: 201, body: { taken: true } }));
        expect(takenOver).to.equal({ answer: { status: 201, body: { taken: true } }, replayed: false });

        const old = scope();
        await answerOnce(models(), old, () => Promise.resolve({ status: 201, body: {} }));
        expect(await deleteExpiredMessagingIdempotencyKeys(models(), Date.now() + 25 * 3600 * 1000)).to.be.at.least(1);
        expect(await models().MessagingIdempotencyKey.count({ where: { idempotency_key: old.key } })).to.equal(0);
    });
});
