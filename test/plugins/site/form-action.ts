import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Request, Server } from '@hapi/hapi';

import { ServiceError } from '../../../lib/errors';
import { formAction, type FormAction } from '../../../plugins/site/form-action';
import { testServer } from '../../helpers/server';
import { capturingStderr } from '../../helpers/stderr';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('formAction()', () => {

    let server: Server;
    let path = 0;

    before(async () => {

        server = await testServer();
    });

    after(async () => {

        await server.stop();
    });

    /** A route of its own whose handler formAction() makes from `action`; answers server.inject's response. */
    async function sent<T>(action: FormAction<T>) {

        const url = `/test/form-action/${++path}`;
        server.route({
            method: 'POST',
            path: url,
            options: { auth: false, handler: formAction(server.app.services.models, action) }
        });
        return await server.inject({ method: 'POST', url, remoteAddress: '192.0.2.9' });
    }

    const audits = (target: string) => server.app.services.models.AuditEvent.count({ where: { target } });
    const entry = (target: string) => ({ action: 'api.disable' as const, target, actor: { id: null, email: null } });

    it('audits what was done, then answers', async () => {

        const target = `done-${Date.now()}`;
        const response = await sent({
            run: () => Promise.resolve('done'),
            audited: () => entry(target),
            answer: (_request, h, outcome) => h.response(outcome).code(201)
        });

        expect(response.statusCode).to.equal(201);
        expect(response.payload).to.equal('done');
        expect(await audits(target)).to.equal(1);
    });

    it('records nothing when the work was done already', async () => {

        const target = `done-already-${Date.now()}`;
        const response = await sent({
            run: () => Promise.resolve({ changed: false }),
            audited: (_request: Request, { changed }) => (changed ? entry(target) : undefined),
            answer: (_request, h) => h.redirect('/there')
        });

        expect(response.statusCode).to.equal(302);
        expect(await audits(target)).to.equal(0);
    });

    it('shows a service\'s refusal on the form, a wrong request as 422, and records nothing', async () => {

        const target = `refused-${Date.now()}`;
        const response = await sent({
            run: () => Promise.reject(new ServiceError('invalid_request', 'Resources must be some of persons.')),
            refused: (_request, h, refusal) => h.response(`form: ${refusal.message}`).code(refusal.statusCode),
            audited: () => entry(target),
            answer: (_request, h) => h.redirect('/there')
        });

        expect(response.statusCode).to.equal(422);
        expect(response.payload).to.equal('form: Resources must be some of persons.');
        expect(await audits(target)).to.equal(0);
    });

    it('answers "not found" as the 404 it is, not on the form', async () => {

        const response = await sent({
            run: () => Promise.reject(new ServiceError('not_found', 'No such key.', 404)),
            refused: (_request, h) => h.response('form').code(422),
            answer: (_request, h) => h.redirect('/there')
        });

        expect(response.statusCode).to.equal(404);
    });

    it('lets a failure that is no refusal through, and a refusal where no form can show it', async () => {

        const { result: failing, written } = await capturingStderr(() => sent({
            run: () => Promise.reject(new Error('a bug')),
            refused: (_request, h) => h.response('form').code(422),
            answer: (_request, h) => h.redirect('/there')
        }));
        expect(failing.statusCode).to.equal(500);
        expect(written.join('\n')).to.contain('Error: a bug');

        const unshown = await sent({
            run: () => Promise.reject(new ServiceError('service_unavailable', 'The change is saved, but Redis did not answer.', 503)),
            answer: (_request, h) => h.redirect('/there')
        });
        expect(unshown.statusCode).to.equal(503);
    });
});
