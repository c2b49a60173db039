import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import Joi from 'joi';

import { jsonSchemaOf, keysOf, literalName } from '../../../plugins/docs/json-schema';

export const lab = Lab.script();
const { describe, it } = lab;

describe('literalName()', () => {

    it('reads the one name a key pattern matches', () => {

        expect(literalName('^filter\\[gender\\]$')).to.equal('filter[gender]');
        expect(literalName('^cursor$')).to.equal('cursor');
    });

    it('finds none in a pattern that matches many names', () => {

        expect(literalName('^filter\\[.+\\]$')).to.be.undefined();
        expect(literalName('^x_\\d$')).to.be.undefined();
        expect(literalName('filter')).to.be.undefined();
    });
});

describe('keysOf()', () => {

    it('lists keys and literal key patterns with their schemas, descriptions and presence', () => {

        const schema = Joi.object({
            sort: Joi.string().valid('a', 'b').required(),
            limit: Joi.number().integer().min(1).max(100).default(25)
        }).pattern(/^filter\[name\]$/, Joi.string().max(10).description('A name.').required());

        expect(keysOf(schema, 'GET /x')).to.equal([
            { name: 'sort', required: true, schema: { type: 'string', enum: ['a', 'b'] } },
            { name: 'limit', required: false, schema: { type: 'integer', default: 25, minimum: 1, maximum: 100 } },
            { name: 'filter[name]', required: false, description: 'A name.', schema: { type: 'string', maxLength: 10, minLength: 1 } }
        ]);
    });

    it('refuses a key pattern it cannot name', () => {

        const schema = Joi.object().pattern(/^filter\[.+\]$/, Joi.string());
        expect(() => keysOf(schema, 'GET /x')).to.throw('API reference: GET /x accepts keys matching /^filter\\[.+\\]$/, which cannot be documented as named parameters');
    });

    it('gives a key whose rules depend on another key its usual rules, and tells the other cases', () => {

        const anExport = Joi.string().invalid('json').required();
        const schema = Joi.object({
            format: Joi.string().valid('json', 'csv', 'pdf', 'xml'),
            limit: Joi.number().integer().min(1).when('format', { is: anExport, then: Joi.optional(), otherwise: Joi.number().max(100).default(25) })
                .when('format', { is: 'xml', then: Joi.number().max(10) }),
            cursor: Joi.string().max(1000).description('Where to go on.').when('format', { is: anExport, then: Joi.forbidden() })
        });

        const [, limit, cursor] = keysOf(schema, 'GET /x');
        expect(limit).to.equal({
            name: 'limit',
            required: false,
            description: 'When `format` is `csv` or `pdf`: no default and no maximum. When `format` is `xml`: no default and maximum 10.',
            schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 }
        });
        expect(cursor).to.equal({ name: 'cursor', required: false, description: 'Where to go on. When `format` is `csv`, `pdf` or `xml`: not allowed.', schema: { type: 'string', maxLength: 1000, minLength: 1 } });
    });

    it('refuses a key whose rules depend on a key of unknown values, or on anything but one other key', () => {

        const onFreeText = Joi.object({ format: Joi.string(), limit: Joi.number().when('format', { is: 'csv', then: Joi.number().max(5) }) });
        expect(() => keysOf(onFreeText, 'GET /x')).to.throw('API reference: the rules of "limit" depend on "format", which does not take a known set of values, so they cannot be documented');

        const onTwoKeys = Joi.object({ a: Joi.valid('x'), b: Joi.valid('y'), limit: Joi.number().when('a', { is: 'x', then: Joi.number().max(5) }).when('b', { is: 'y', then: Joi.number().max(6) }) });
        expect(() => keysOf(onTwoKeys, 'GET /x')).to.throw('API reference: the rules of "limit" depend on something other than one other key\'s value, which cannot be documented');

        const onContext = Joi.object({ limit: Joi.number().when('$plan', { is: 'max', then: Joi.number().max(5) }) });
        expect(() => keysOf(onContext, 'GET /x')).to.throw('API reference: the rules of "limit" depend on something other than one other key\'s value, which cannot be documented');
    });
});

describe('jsonSchemaOf()', () => {

    it('says that a string joi refuses when empty needs a character, as the server answers', () => {

        const schema = Joi.object({
            name: Joi.string().max(5),
            nullable: Joi.string().allow(null),
            note: Joi.string().allow('', null),
            code: Joi.string().min(3),
            exact: Joi.string().length(2),
            kind: Joi.string().valid('x', 'y'),
            count: Joi.number()
        }).pattern(/^filter\[name\]$/, Joi.string().max(10)).pattern(/^filter\[note\]$/, Joi.string().allow(''));

        const converted = jsonSchemaOf(schema);
        const properties = { ...converted.properties as object, ...converted.patternProperties as object } as Record<string, { minLength?: number }>;
        const minLengths = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, property.minLength]));
        expect(minLengths).to.equal({
            name: 1, nullable: 1, note: undefined, code: 3, exact: 1, kind: undefined, count: undefined,
            '^filter\\[name\\]$': 1, '^filter\\[note\\]$': undefined
        });

        for (const [name, accepted] of [['name', false], ['note', true]] as const) {
            expect(schema.validate({ [name]: '' }).error === undefined, name).to.equal(accepted);
        }
    });

    it('converts a body with nullable, defaulted and refused-unknown fields', () => {

        const schema = Joi.object({
            name: Joi.string().max(5).required(),
            note: Joi.string().allow(null),
            kind: Joi.string().valid('x', 'y').default('x')
        });

        expect(jsonSchemaOf(schema)).to.equal({
            type: 'object',
            properties: {
                name: { type: 'string', maxLength: 5, minLength: 1 },
                note: { type: ['string', 'null'], minLength: 1 },
                kind: { type: 'string', default: 'x', enum: ['x', 'y'] }
            },
            required: ['name'],
            additionalProperties: false
        });
    });

    it('says how many keys an object takes, as joi\'s min(), max() and length() refuse', () => {

        const key = Joi.string();
        expect(jsonSchemaOf(Joi.object({ a: key, b: key }).min(1))).to.include({ minProperties: 1 });
        expect(jsonSchemaOf(Joi.object({ a: key, b: key }).max(1))).to.include({ maxProperties: 1 });
        expect(jsonSchemaOf(Joi.object({ a: key, b: key }).length(1))).to.include({ minProperties: 1, maxProperties: 1 });
        expect(jsonSchemaOf(Joi.object({ a: key }))).to.not.include(['minProperties', 'maxProperties']);
        expect(jsonSchemaOf(Joi.string().min(2))).to.equal({ type: 'string', minLength: 2 });
    });
});
