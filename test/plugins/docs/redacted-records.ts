/*
 * The references' account of living-person privacy: what a redacted record looks like, per resource, which list
 * parameters never match one, who counts as living; checked against the real answers of a redacted key.
 */
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import * as Lab from '@hapi/lab';

import type { JsonSchema, OpenApiDocument } from '../../../plugins/docs/openapi-types';
import { recordSchemaName } from '../../../plugins/docs/record-schemas';
import { resourceNames, resources, type ResourceName } from '../../../models/resources';
import { documentedAnswers } from '../../helpers/documented-answers';
import { livingFamily, type LivingFamily } from '../../helpers/living-family';
import { editPolicyFile } from '../../helpers/policy-files';
import { copyPolicies, testServer } from '../../helpers/server';
import { bodyOf } from '../records/fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

type Properties = Record<string, JsonSchema>;

const versions = ['v1', 'v2'] as const;

/** What the issue asks of each resource: the fields a redacted record shows as null, and a person's name. */
const hiddenByContract: Record<ResourceName, string[]> = {
    trees: [],
    persons: ['last_name', 'birth_name', 'birth_date', 'birth_place', 'death_date', 'death_place', 'notes'],
    gallery: ['title', 'description', 'taken_on', 'place', 'original_name', 'media_type'],
    events: ['title', 'date', 'place', 'description'],
    projects: [],
    finances: [],
    documents: ['title', 'category', 'document_date', 'description', 'original_name', 'media_type'],
    history: ['title', 'period', 'occurred_on', 'place', 'body']
};

const propertiesOf = (document: OpenApiDocument, name: ResourceName): Properties => document.components.schemas[recordSchemaName(resources[name])].properties as Properties;

/** The fields a document says a redacted record shows otherwise, with the value it shows. */
const redactedValues = (document: OpenApiDocument, name: ResourceName): Record<string, unknown> => Object.fromEntries(Object.entries(propertiesOf(document, name))
    .filter(([, property]) => 'x-redacted-value' in property)
    .map(([field, property]) => [field, property['x-redacted-value']]));

const parameterText = (document: OpenApiDocument, path: string, name: string) => document.paths[path].get.parameters.find((parameter) => parameter.name === name)!.description ?? '';

const neverMatches = 'With a key whose `living_persons` is `redacted`, it never matches a redacted record.';

describe('the references of redacted records', () => {

    let server: Server;
    let family: LivingFamily;
    const documents = {} as Record<typeof versions[number], OpenApiDocument>;

    before(async () => {

        server = await testServer();
        for (const version of versions) {
            documents[version] = bodyOf(await server.inject(`/api/${version}/openapi.json`));
        }

        family = await livingFamily(server);
    });

    after(() => server.stop());

    it('say per resource which fields a redacted record shows as null, and its person\'s name "Living"', () => {

        for (const version of versions) {
            for (const name of resourceNames) {
                const expected = Object.fromEntries(hiddenByContract[name].map((field) => [field, null]));
                expect(redactedValues(documents[version], name), `${version} ${name}`).to.equal(name === 'persons' ? { first_name: 'Living', ...expected } : expected);
                for (const field of hiddenByContract[name]) {
                    expect(propertiesOf(documents[version], name)[field].type, `${version} ${name}.${field}`).to.include('null');
                }

                const redacted = propertiesOf(documents[version], name).redacted;
                expect(redacted, `${version} ${name}`).to.include({ type: 'boolean', readOnly: true });
                expect(redacted.description).to.contain(hiddenByContract[name].length > 0 ? 'True when' : 'Always false');
                expect(documents[version].components.schemas[recordSchemaName(resources[name])].required).to.not.include('redacted');
            }

            expect(propertiesOf(documents[version], 'gallery').redacted.description).to.contain('its file answers 404 `not_found`');
            expect(documents[version].info.description).to.contain('more than 110 years ago').and.to.contain('The change stream and webhooks carry no record data').and.to.contain('`living_person_protected`');
            expect(documents[version].paths[`/api/${version}/persons/{id}`].patch.responses['403'].description).to.contain('`living_person_protected`');
        }
    });

    it('say which list parameters never match a redacted record: search, and filters and sorts on hidden fields', () => {

        for (const version of versions) {
            const document = documents[version];
            const persons = `/api/${version}/persons`;
            expect(parameterText(document, persons, 'search')).to.contain(neverMatches);
            expect(parameterText(document, persons, 'filter[last_name]')).to.contain(neverMatches);
            expect(parameterText(document, persons, 'filter[first_name]')).to.contain(neverMatches);
            expect(parameterText(document, persons, 'filter[gender]')).to.not.contain('redacted');
            expect(parameterText(document, persons, 'filter[parent_1_id]')).to.not.contain('redacted');
            expect(parameterText(document, persons, 'sort')).to.contain('redacted records sort as empty (last)');
            expect(parameterText(document, `/api/${version}/events`, 'filter[type]')).to.not.contain('redacted');
            expect(parameterText(document, `/api/${version}/all`, 'search')).to.contain(neverMatches);
            for (const name of ['trees', 'projects', 'finances']) {
                for (const parameter of ['search', 'sort']) {
                    expect(parameterText(document, `/api/${version}/${name}`, parameter), `${name} ${parameter}`).to.not.contain('redacted');
                }
            }
        }
    });

    it('describe the answers of a redacted key: each record validates, and a redacted one shows the documented values', async () => {

        const closedCheck = (version: typeof versions[number]) => documentedAnswers(documents[version], { closed: true });
        for (const version of versions) {
            const check = closedCheck(version);
            const expectDocumented = (path: string, status: number, body: unknown) => {

                const problem = check(path, 'get', status, body);
                expect(problem, problem).to.not.exist();
            };

            for (const name of resourceNames) {
                const list = await family.redacted.inject('GET', `/api/${version}/${name}`);
                expect(list.statusCode, list.payload).to.equal(200);
                expectDocumented(`/api/${version}/${name}`, 200, bodyOf(list));
                const records = bodyOf(list).data as Record<string, unknown>[];
                const redacted = records.filter((record) => record.redacted === true);
                expect(records.every((record) => typeof record.redacted === 'boolean'), `${version} ${name}`).to.be.true();
                expect(redacted.length > 0, `${version} ${name}`).to.equal(hiddenByContract[name].length > 0);
                for (const record of redacted) {
                    expect(record, `${version} ${name}`).to.include(redactedValues(documents[version], name));
                    expectDocumented(`/api/${version}/${name}/{id}`, 200, bodyOf(await family.redacted.inject('GET', `/api/${version}/${name}/${record.id}`)));
                }

                const full = bodyOf(await family.full.inject('GET', `/api/${version}/${name}`)).data as Record<string, unknown>[];
                expect(full.some((record) => 'redacted' in record), `${version} ${name}`).to.be.false();
            }

            expectDocumented(`/api/${version}/all`, 200, bodyOf(await family.redacted.inject('GET', `/api/${version}/all`)));
            const file = await family.redacted.inject('GET', `/api/${version}/documents/${family.documents.ofLiving}/file`);
            expect(file.statusCode).to.equal(404);
            expectDocumented(`/api/${version}/documents/{id}/file`, 404, bodyOf(file));
        }
    });
});

describe('the reference of redacted records after a policy reload', () => {

    it('follows privacy.yaml: the redacted name and the age in the document', async () => {

        const policiesDir = copyPolicies();
        const server = await testServer({ policiesDir });
        try {
            editPolicyFile(policiesDir, 'privacy.yaml', '${PRIVACY_REDACTED_NAME:-Living}', 'Private');
            editPolicyFile(policiesDir, 'privacy.yaml', '${PRIVACY_MAX_AGE_YEARS:-110}', '100');
            expect(server.app.services.policyStore.reload()).to.be.true();

            const document: OpenApiDocument = bodyOf(await server.inject('/api/v1/openapi.json'));
            expect(propertiesOf(document, 'persons').first_name['x-redacted-value']).to.equal('Private');
            expect(propertiesOf(document, 'persons').redacted.description).to.contain('`first_name` reads "Private"');
            expect(document.info.description).to.contain('more than 100 years ago');
        }
        finally {
            await server.stop();
        }
    });
});
