/*
 * The guard on v1's contract: the document the server generates for /api/v1 must break nothing of the snapshot
 * committed in test/fixtures/openapi/v1.json. An incompatible change is published under a new version
 * (docs/api.md "Versions"). A compatible addition passes; `npm run snapshot:v1` refreshes the snapshot on
 * purpose, and refuses to while the document breaks it.
 */
import Fs from 'fs';
import Path from 'path';

import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { projectRoot } from '../../../lib/config';
import type { JsonSchema, OpenApiDocument } from '../../../plugins/docs/openapi-types';
import { incompatibleChanges } from '../../helpers/openapi-compatibility';
import { testServer } from '../../helpers/server';
import { bodyOf } from '../records/fixtures';

export const lab = Lab.script();
const { describe, it, before } = lab;

const v1Snapshot = Path.join(projectRoot, 'test', 'fixtures', 'openapi', 'v1.json');

const snapshot = () => JSON.parse(Fs.readFileSync(v1Snapshot, 'utf8')) as OpenApiDocument;

/** A copy of the snapshot, changed by `alter`. */
function altered(alter: (document: OpenApiDocument) => void): OpenApiDocument {

    const document = snapshot();
    alter(document);
    return document;
}

const schema = (document: OpenApiDocument, name: string) => document.components.schemas[name] as JsonSchema & { properties: Record<string, JsonSchema>; required?: string[] };
const parameter = (document: OpenApiDocument, path: string, name: string) => document.paths[path].get.parameters.find((candidate) => candidate.name === name)!;

describe('v1\'s contract', () => {

    let generated: OpenApiDocument;

    before(async () => {

        const server = await testServer();
        const response = await server.inject('/api/v1/openapi.json');
        await server.stop();
        expect(response.statusCode).to.equal(200);
        generated = bodyOf(response);
    });

    it('holds: the generated /api/v1 document breaks nothing of the committed snapshot', () => {

        const changes = incompatibleChanges(snapshot(), generated);
        expect(changes, `/api/v1 changed incompatibly (publish the change under a new version instead):\n${changes.join('\n')}`).to.equal([]);
        if (process.env.UPDATE_V1_SNAPSHOT === 'true') {
            Fs.writeFileSync(v1Snapshot, `${JSON.stringify(generated, null, 2)}\n`);
        }
    });

    it('is broken by a path, method, parameter, enum value, response field or status removed', () => {

        const expectBreaks = (alter: (document: OpenApiDocument) => void, change: string) => {

            expect(incompatibleChanges(snapshot(), altered(alter))).to.include(change);
        };

        expectBreaks((document) => delete document.paths['/api/v1/trees'], '/api/v1/trees: path removed');
        expectBreaks((document) => delete document.paths['/api/v1/persons/{id}'].delete, 'DELETE /api/v1/persons/{id}: method removed');
        expectBreaks((document) => {

            document.paths['/api/v1/persons'].get.parameters = document.paths['/api/v1/persons'].get.parameters.filter((candidate) => candidate.name !== 'search');
        }, 'GET /api/v1/persons: query parameter "search" removed');
        expectBreaks((document) => {

            const direction = parameter(document, '/api/v1/persons', 'direction').schema;
            direction.enum = (direction.enum as string[]).filter((value) => value !== 'desc');
        }, 'GET /api/v1/persons: query parameter "direction": enum value "desc" removed');
        expectBreaks((document) => delete schema(document, 'Person').properties.notes, 'GET /api/v1/persons: response 200 application/json.data[]: field "notes" removed');
        expectBreaks((document) => delete document.paths['/api/v1/persons/{id}'].get.responses['404'], 'GET /api/v1/persons/{id}: response 404 removed');
    });

    it('is broken by a type narrowed, a field or parameter made required', () => {

        const changes = (alter: (document: OpenApiDocument) => void) => incompatibleChanges(snapshot(), altered(alter));

        expect(changes((document) => {

            schema(document, 'Person').properties.notes.type = 'integer';
        })).to.include('GET /api/v1/persons: response 200 application/json.data[].notes: type narrowed from string or null to integer');
        expect(changes((document) => {

            parameter(document, '/api/v1/persons', 'limit').schema.maximum = 10;
        })).to.include('GET /api/v1/persons: query parameter "limit": maximum narrowed from 100 to 10');
        expect(changes((document) => {

            const body = document.paths['/api/v1/persons'].post.requestBody!.content['application/json'].schema as { required: string[] };
            body.required.push('notes');
        })).to.include('POST /api/v1/persons: request body application/json: field "notes" made required');
        expect(changes((document) => {

            parameter(document, '/api/v1/persons', 'search').required = true;
        })).to.include('GET /api/v1/persons: query parameter "search" made required');
    });

    it('takes additions: a path, a method, an optional parameter, a response field, an enum value, a status', () => {

        const added = altered((document) => {

            document.paths['/api/v1/new'] = { get: document.paths['/api/v1/trees'].get };
            document.paths['/api/v1/trees'].put = document.paths['/api/v1/trees'].post;
            document.paths['/api/v1/persons'].get.parameters.push({ name: 'since', in: 'query', required: false, schema: { type: 'string' } });
            schema(document, 'Person').properties.nickname = { type: 'string' };
            (parameter(document, '/api/v1/persons', 'direction').schema.enum as string[]).push('random');
            document.paths['/api/v1/persons'].get.responses['418'] = { description: 'A teapot.' };
            parameter(document, '/api/v1/persons', 'limit').schema.maximum = 1000;
        });

        expect(incompatibleChanges(snapshot(), added)).to.equal([]);
    });
});
