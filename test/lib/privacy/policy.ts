import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { projectRoot } from '../../../lib/config';
import { editedPolicies, loadError, loadServicePolicies, policiesWithout, policyFileNames } from '../../helpers/policy-files';
import { testServer } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it } = lab;

const shipped = 'max_age_years: ${PRIVACY_MAX_AGE_YEARS:-110}';

describe('loadServicePolicies(): privacy.yaml', () => {

    it('loads the shipped living-persons rule', () => {

        const { privacy } = loadServicePolicies(Path.join(projectRoot, 'policies'));
        expect(privacy).to.equal({ livingPersons: { maxAgeYears: 110, redactedName: 'Living' } });
        expect(policyFileNames).to.include('privacy.yaml');
    });

    it('takes its values from the environment where the file says so', () => {

        process.env.PRIVACY_MAX_AGE_YEARS = '100';
        process.env.PRIVACY_REDACTED_NAME = 'Lebend';
        try {
            expect(loadServicePolicies().privacy.livingPersons).to.equal({ maxAgeYears: 100, redactedName: 'Lebend' });
        }
        finally {
            delete process.env.PRIVACY_MAX_AGE_YEARS;
            delete process.env.PRIVACY_REDACTED_NAME;
        }
    });

    it('refuses an age that is not a whole number of years from 1 to 150', () => {

        const cases: [string, string][] = [
            ['0', 'must be greater than or equal to 1'],
            ['151', 'must be less than or equal to 150'],
            ['110.5', 'must be an integer'],
            ['ninety', 'must be a number']
        ];
        for (const [value, problem] of cases) {
            const dir = editedPolicies('privacy.yaml', shipped, `max_age_years: ${value}`);
            expect(loadError(dir), value).to.equal(`${Path.join(dir, 'privacy.yaml')}: living_persons.max_age_years: ${problem}`);
        }
    });

    it('refuses an empty redacted name, and a missing section or file', () => {

        const empty = editedPolicies('privacy.yaml', '"${PRIVACY_REDACTED_NAME:-Living}"', '" "');
        expect(loadError(empty)).to.equal(`${Path.join(empty, 'privacy.yaml')}: living_persons.redacted_name: is not allowed to be empty`);

        const noSection = editedPolicies('privacy.yaml', '\nliving_persons:', '\nliving_people:');
        expect(loadError(noSection)).to.equal(`${Path.join(noSection, 'privacy.yaml')}: living_persons: is required\n${Path.join(noSection, 'privacy.yaml')}: living_people: is not allowed`);

        const missing = policiesWithout('privacy.yaml');
        expect(loadError(missing)).to.equal(`${Path.join(missing, 'privacy.yaml')}: file not found`);
    });

    it('stops the service\'s start-up with the file\'s problem', async () => {

        const dir = editedPolicies('privacy.yaml', shipped, 'max_age_years: 0');
        await expect(testServer({ policiesDir: dir })).to.reject(/privacy\.yaml: living_persons\.max_age_years: must be greater than or equal to 1/);
    });
});
