import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server, ServerInjectResponse } from '@hapi/hapi';
import { compileErrors, validate } from '@readme/openapi-parser';
import Ajv2020 from 'ajv/dist/2020';

import type { OpenApiDocument } from '../../../plugins/docs/openapi-types';
import { documentedAnswers } from '../../helpers/documented-answers';
import { bodyOf, dataOf, messagingClient, messagingClients } from './fixtures';
import { testServer } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('GET /messaging/v1/openapi.json', () => {

    let server: Server;
    let document: OpenApiDocument;

    before(async () => {

        server = await testServer();
        const response = await server.inject('/messaging/v1/openapi.json');
        expect(response.statusCode, response.payload).to.equal(200);
        document = bodyOf(response);
    });

    after(() => server.stop());

    it('is public, a valid OpenAPI 3.1 document of valid JSON Schema 2020-12 schemas, of the messaging routes only', async () => {

        const result = await validate(structuredClone(document) as never);
        expect(result.valid, result.valid ? '' : compileErrors(result)).to.be.true();
        const ajv = new Ajv2020({ strict: false, validateFormats: false });
        for (const schema of Object.values(document.components.schemas)) {
            expect(ajv.validateSchema(schema), ajv.errorsText()).to.be.true();
        }

        const routes = server.table().filter((route) => route.path.startsWith('/messaging/v1/')).map((route) => `${route.method} ${route.path}`).sort();
        const documented = Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method} ${path}`)).sort();
        expect(documented).to.equal(routes);
        expect(Object.keys(document.components.schemas).sort()).to.equal(['Block', 'Conversation', 'Error', 'Message', 'Person']);
        expect(document.info.title).to.equal('Family Records messaging API');
        expect(document.info.description).to.contain('access token');
    });

    it('names the device-token scheme and each operation\'s scope in its security requirement', () => {

        expect(Object.keys(document.components.securitySchemes)).to.equal(['messaging']);
        expect(document.components.securitySchemes.messaging.description).to.contain('frd_');
        expect(document.paths['/messaging/v1/conversations'].get.security).to.equal([{ messaging: ['messages:read'] }]);
        expect(document.paths['/messaging/v1/conversations/{id}/messages'].post.security).to.equal([{ messaging: ['messages:write'] }]);
        expect(document.paths['/messaging/v1/me'].get.security).to.equal([{ messaging: ['profile'] }]);
        expect(document.paths['/messaging/v1/openapi.json'].get.security).to.equal([]);
    });

    it('documents the required Idempotency-Key of a send and If-Match of an edit, and the codes they bring', () => {

        const send = document.paths['/messaging/v1/conversations/{id}/messages'].post;
        const edit = document.paths['/messaging/v1/messages/{id}'].patch;
        const header = (operation: typeof send, name: string) => operation.parameters.find((parameter) => parameter.name === name);
        expect(header(send, 'Idempotency-Key')).to.include({ in: 'header', required: true });
        expect(header(edit, 'Idempotency-Key')).to.include({ required: false });
        expect(header(edit, 'If-Match')).to.include({ required: true });
        expect(Object.keys(send.responses)).to.include(['201', '400', '403', '404', '409', '422']);
        expect(Object.keys(edit.responses)).to.include(['200', '412', '428']);
        expect(edit.responses['428'].description).to.contain('precondition_required');
    });

    it('declares every field of real answers, errors included, the 412\'s current message too', async () => {

        // An error's own fields (the 412's `current`) extend the Error schema through allOf, which a closed copy of Error would refuse: checked open.
        const closedCheck = documentedAnswers(document, { closed: true });
        const openCheck = documentedAnswers(document);
        const expectDeclared = (path: string, method: string, response: ServerInjectResponse) => {

            const check = response.statusCode === 412 ? openCheck : closedCheck;
            if (response.statusCode === 204) {
                expect(document.paths[`/messaging/v1${path}`][method].responses['204'], `${method} ${path}`).to.exist();
                return;
            }

            const problem = check(`/messaging/v1${path}`, method, response.statusCode, bodyOf(response));
            expect(problem, problem).to.not.exist();
        };

        const [anna, ben, cleo] = await messagingClients(server, 3);
        const direct = await anna.write('POST', '/conversations', { kind: 'direct', user_id: ben.user.id });
        expectDeclared('/conversations', 'post', direct);
        const { id } = dataOf(direct, 201);
        expectDeclared('/conversations', 'post', await anna.write('POST', '/conversations', { kind: 'direct', user_id: ben.user.id }));
        const group = await anna.write('POST', '/conversations', { kind: 'group', title: 'G', member_ids: [ben.user.id] });
        expectDeclared('/conversations', 'post', group);
        const groupId = dataOf(group, 201).id;
        const sent = await anna.write('POST', `/conversations/${id}/messages`, { body: 'Hi' });
        expectDeclared('/conversations/{id}/messages', 'post', sent);
        const messageId = dataOf(sent, 201).id;

        expectDeclared('/conversations', 'get', await anna.call('GET', '/conversations'));
        expectDeclared('/conversations/{id}', 'get', await anna.call('GET', `/conversations/${id}`));
        expectDeclared('/conversations/{id}', 'patch', await anna.write('PATCH', `/conversations/${groupId}`, { title: 'H' }));
        expectDeclared('/conversations/{id}/members', 'post', await anna.write('POST', `/conversations/${groupId}/members`, { user_id: cleo.user.id }));
        expectDeclared('/conversations/{id}/members/{user_id}', 'delete', await anna.write('DELETE', `/conversations/${groupId}/members/${cleo.user.id}`));
        expectDeclared('/conversations/{id}/read', 'post', await ben.write('POST', `/conversations/${id}/read`));
        expectDeclared('/conversations/{id}/messages', 'get', await ben.call('GET', `/conversations/${id}/messages`));
        expectDeclared('/messages/{id}', 'get', await ben.call('GET', `/messages/${messageId}`));
        expectDeclared('/messages/{id}', 'patch', await anna.write('PATCH', `/messages/${messageId}`, { body: 'Hey' }, { 'if-match': '"1"' }));
        const stale = await anna.write('PATCH', `/messages/${messageId}`, { body: 'Hey' }, { 'if-match': '"1"' });
        expectDeclared('/messages/{id}', 'patch', stale);
        const staleSchema = document.paths['/messaging/v1/messages/{id}'].patch.responses['412'].content!['application/json'].schema as { allOf: { properties: object }[] };
        expect(staleSchema.allOf[1].properties).to.equal({ code: { enum: ['precondition_failed'] }, current: { $ref: '#/components/schemas/Message' } });
        expect(Object.keys(bodyOf(stale))).to.equal(['statusCode', 'error', 'message', 'code', 'current']);
        expectDeclared('/messages/{id}', 'patch', await anna.write('PATCH', `/messages/${messageId}`, { body: 'Hey' }));
        expectDeclared('/messages/{id}', 'delete', await anna.write('DELETE', `/messages/${messageId}`, undefined, { 'if-match': '"2"' }));
        expectDeclared('/people', 'get', await anna.call('GET', '/people'));
        expectDeclared('/me', 'get', await anna.call('GET', '/me'));
        expectDeclared('/blocks/{user_id}', 'put', await anna.write('PUT', `/blocks/${cleo.user.id}`));
        expectDeclared('/blocks/{user_id}', 'put', await anna.write('PUT', `/blocks/${cleo.user.id}`));
        expectDeclared('/blocks', 'get', await anna.call('GET', '/blocks'));
        expectDeclared('/blocks/{user_id}', 'delete', await anna.write('DELETE', `/blocks/${cleo.user.id}`));
        expectDeclared('/conversations/{id}/messages', 'post', await anna.call('POST', `/conversations/${id}/messages`, { body: 'No key' }));
        expectDeclared('/conversations/{id}', 'get', await anna.call('GET', '/conversations/cnv_00000000000000000000'));
        expectDeclared('/conversations', 'get', await server.inject('/messaging/v1/conversations'));
        const readOnly = await messagingClient(server, anna.user, 'messages:read');
        expectDeclared('/blocks/{user_id}', 'put', await readOnly.write('PUT', `/blocks/${cleo.user.id}`));
    });

    it('is shown to people at /docs/messaging/v1, with the scope each operation needs', async () => {

        const page = await server.inject('/docs/messaging/v1');
        expect(page.statusCode).to.equal(200);
        expect(page.payload).to.contain('Family Records messaging API');
        expect(page.payload).to.contain('Access token with scope <code>messages:write</code>.');
        expect(page.payload).to.contain('/messaging/v1/openapi.json');
    });
});
