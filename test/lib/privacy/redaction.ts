import type { Server } from '@hapi/hapi';
import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import type { Principal } from '../../../gateway/principal';
import { livingCutoff } from '../../../lib/privacy/living-persons';
import { hiddenFields, recordConcernsLivingPerson, redactedFields, redactedValue, redactionFor } from '../../../lib/privacy/redaction';
import { resources } from '../../../models/resources';
import { familyWithKey, testServer } from '../../helpers/server';
import { concernRoles, livingFamily, type LivingFamily } from '../../helpers/living-family';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const policy = { maxAgeYears: 110, redactedName: 'Living' };
const principalSeeing = (livingPersons: 'full' | 'redacted') => ({ scopes: { livingPersons } }) as Principal;

describe('redactionFor(), hiddenFields(), redactedValue() (redaction.ts)', () => {

    it('gives a redacted key today\'s cutoff and the policy\'s name, and a full one nothing', () => {

        const now = new Date('2026-02-28T10:00:00Z');
        expect(redactionFor(principalSeeing('redacted'), policy, now)).to.equal({ cutoff: '1916-02-28', name: 'Living' });
        expect(redactionFor(principalSeeing('redacted'), policy)).to.equal({ cutoff: livingCutoff(policy), name: 'Living' });
        expect(redactionFor(principalSeeing('full'), policy, now)).to.be.undefined();
    });

    it('hides every text and date of a person but the first name, which reads the redacted name', () => {

        expect(hiddenFields(resources.persons)).to.equal(['last_name', 'birth_name', 'birth_date', 'birth_place', 'death_date', 'death_place', 'notes']);
        expect(redactedFields(resources.persons)).to.equal(['first_name', ...hiddenFields(resources.persons)]);
        const redaction = { cutoff: '1916-02-28', name: 'Living' };
        expect(redactedValue(resources.persons, 'first_name', redaction)).to.equal('Living');
        expect(redactedValue(resources.persons, 'last_name', redaction)).to.be.null();
        expect(redactedValue(resources.events, 'title', redaction)).to.be.null();
    });

    it('hides the texts and dates of the records that name a person, keeping enums, numbers and references', () => {

        expect(hiddenFields(resources.events)).to.equal(['title', 'date', 'place', 'description']);
        expect(hiddenFields(resources.gallery)).to.equal(['title', 'description', 'taken_on', 'place', 'original_name', 'media_type']);
        expect(hiddenFields(resources.documents)).to.equal(['title', 'category', 'document_date', 'description', 'original_name', 'media_type']);
        expect(hiddenFields(resources.history)).to.equal(['title', 'period', 'occurred_on', 'place', 'body']);
        expect(redactedFields(resources.history)).to.equal(hiddenFields(resources.history));
    });

    it('hides nothing of trees, projects and finances', () => {

        for (const name of ['trees', 'projects', 'finances'] as const) {
            expect(hiddenFields(resources[name]), name).to.equal([]);
            expect(redactedFields(resources[name]), name).to.equal([]);
        }
    });
});

describe('recordConcernsLivingPerson() (redaction.ts)', () => {

    let server: Server;
    let family: LivingFamily;

    const concerns = (resourceName: keyof typeof resources, record: { id: string; family_long_id: string; person_id?: string | null }) => {

        const { sequelize } = server.app.services;
        return recordConcernsLivingPerson(sequelize, sequelize.getDialect(), resources[resourceName], record, { cutoff: family.cutoff, name: 'Living' });
    };

    before(async () => {

        server = await testServer();
        family = await livingFamily(server);
    });

    after(() => server.stop());

    it('is true of living persons and of the records naming one, and false of the others', async () => {

        for (const [role, id] of Object.entries(family.persons)) {
            expect(await concerns('persons', { id, family_long_id: family.familyLongId }), role).to.equal(family.living.has(id));
        }

        for (const resourceName of ['events', 'gallery', 'documents', 'history'] as const) {
            for (const role of concernRoles) {
                const id = family[resourceName][role];
                expect(await concerns(resourceName, { id, family_long_id: family.familyLongId }), `${resourceName} ${role}`).to.equal(role === 'ofLiving');
            }
        }
    });

    it('is false for a record of no person, of another family, or of a resource never redacted', async () => {

        expect(await concerns('events', { id: family.events.ofLiving, family_long_id: family.familyLongId, person_id: null })).to.be.false();

        const other = await familyWithKey(server);
        expect(await concerns('persons', { id: family.persons.livingRecent, family_long_id: other.familyLongId })).to.be.false();
        expect(await concerns('gallery', { id: family.gallery.ofLiving, family_long_id: other.familyLongId })).to.be.false();
        expect(await concerns('trees', { id: 'tre_AAAAAAAAAAAAAAAAAAAA', family_long_id: family.familyLongId })).to.be.false();
    });
});
