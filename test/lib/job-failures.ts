import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';
import { Sequelize } from 'sequelize';

import { JobFailures } from '../../lib/job-failures';
import { keptLog } from '../helpers/kept-log';
import { freePort } from '../helpers/ports';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('JobFailures', () => {

    let refusing: Sequelize;
    let refused: unknown;

    before(async () => {

        // A real driver's failure: PostgreSQL's client connecting to a port nothing listens on.
        refusing = new Sequelize(`postgres://postgres@127.0.0.1:${await freePort()}/postgres`, { dialect: 'postgres', logging: false });
        refused = await refusing.query('SELECT 1').catch((error: unknown) => error);
    });

    after(() => refusing.close());

    function keptJob(): { job: JobFailures; lines: string[] } {

        const { log, lines } = keptLog();
        return { lines, job: new JobFailures(log, ['webhooks'], 'The sweep') };
    }

    it('logs a bug with its stack, every time it fails', () => {

        const { job, lines } = keptJob();
        job.failed(new TypeError('x is undefined'));
        job.failed(new TypeError('x is undefined'));
        expect(lines).to.have.length(2);
        expect(lines[0]).to.startWith('[webhooks,error] The sweep failed: TypeError: x is undefined\n    at ');
        job.failed('a thrown string');
        expect(lines[2]).to.equal('[webhooks,error] The sweep failed: a thrown string');
    });

    it('says once that the database does not answer, in one line, and once that the work runs again', () => {

        const { job, lines } = keptJob();
        job.succeeded();
        for (let run = 0; run < 3; ++run) {
            job.failed(refused);
        }

        expect(lines).to.have.length(1);
        expect(lines[0]).to.match(/^\[webhooks,unavailable,warn\] The sweep did not run: the database is unreachable \(connect ECONNREFUSED 127\.0\.0\.1:\d+\); it runs again on its schedule, and says here when it does$/);

        job.succeeded();
        job.succeeded();
        expect(lines.slice(1)).to.equal(['[webhooks,unavailable] The sweep runs again: the database answers (3 runs missed)']);

        job.failed(refused);
        job.succeeded();
        expect(lines.slice(2)).to.have.length(2);
        expect(lines[2]).to.startWith('[webhooks,unavailable,warn] The sweep did not run:');
        expect(lines[3]).to.equal('[webhooks,unavailable] The sweep runs again: the database answers (1 run missed)');
    });

    it('logs a bug during an outage with its stack too', () => {

        const { job, lines } = keptJob();
        job.failed(refused);
        job.failed(new RangeError('out of range'));
        expect(lines).to.have.length(2);
        expect(lines[1]).to.startWith('[webhooks,error] The sweep failed: RangeError: out of range\n    at ');
    });

    it('runs work and never rejects', async () => {

        const { job, lines } = keptJob();
        await job.run(() => Promise.reject(refused));
        await job.run(() => Promise.resolve(7));
        expect(lines).to.have.length(2);
        expect(lines[1]).to.equal('[webhooks,unavailable] The sweep runs again: the database answers (1 run missed)');
    });
});
