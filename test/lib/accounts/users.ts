import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { createUser } from '../../../lib/accounts/users';
import { ServiceError } from '../../../lib/errors';
import { familyWithKey, testServer } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('createUser()', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(() => server.stop());

    it('refuses the second of two users with one email created at the same time as existing already', async () => {

        const family = await familyWithKey(server);
        const email = `twice-${family.familyLongId.toLowerCase()}@example.com`;
        const create = () => createUser(server.app.services.accounts, { email, password: 'correct horse battery', familyLongId: family.familyLongId, role: 'member' });

        // Both find no such user, then hash the password (a quarter of a second) while the other does too.
        const outcomes = await Promise.allSettled([create(), create()]);

        expect(outcomes.map((outcome) => outcome.status).sort()).to.equal(['fulfilled', 'rejected']);
        const { reason } = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
        expect(reason).to.be.an.instanceof(ServiceError);
        expect(reason).to.include({ code: 'conflict', statusCode: 409, message: `A user with email ${email} exists already.` });
    });
});
