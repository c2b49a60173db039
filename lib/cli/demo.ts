import { configFromEnvironment } from '../config';
import { seedDemoFamily, type DemoFamily } from '../demo';
import { checkFilesDirectory } from '../files-directory';
import { command } from './command';
import { jsonOption, printResult } from './output';
import { withServer } from './services';

/** How to try the demo family: what `demo` and a first `serve` print. */
export function demoInstructions(demo: DemoFamily, baseUrl: string): string[] {

    const bearer = `-H "Authorization: Bearer ${demo.key}"`;
    return [
        `Demo family "${demo.family.name}" (${demo.family.family_long_id}) on the ${demo.family.plan} plan, API on for ${demo.family.api_resources.join(', ')}.`,
        `  API key ${demo.keyId}, every operation (shown once, store it now):`,
        `    ${demo.key}`,
        `  Manager sign-in (shown once): ${demo.manager.email} / ${demo.manager.password}`,
        ...demo.members.map((member) => `  Member sign-in (shown once): ${member.email} / ${member.password}`),
        `  Super-admin sign-in (shown once): ${demo.superAdmin.email} / ${demo.superAdmin.password}`,
        `  Hosted site: ${baseUrl}/login (Messages for the family's users, Manage > APIs & Connectors, and the admin area)`,
        '  Try it:',
        `    curl ${bearer} "${baseUrl}/api/v1/persons?sort=birth_date"`,
        `    curl ${bearer} -H "Content-Type: application/json" -d '{"title":"Family dinner","type":"reunion","date":"2026-12-24"}' ${baseUrl}/api/v1/events`
    ];
}

export const demoCommand = command({
    usage: 'demo [--json]',
    description: 'Seeds a new demo family (a Family-plan family with sample records in every resource,\na manager, two members with conversations between them, a super-admin and an API key with\nevery operation) and prints how to use it.',
    options: jsonOption,
    async run({ values }) {

        // The server's files plugin stores the demo's files where the running servers keep theirs (FILES_DIR): checked
        // first, as start-up does, so that a FILES_DIR it cannot write leaves no family half seeded.
        checkFilesDirectory(configFromEnvironment().filesDir);
        const { demo, baseUrl } = await withServer(async (server) => ({ demo: await seedDemoFamily(server), baseUrl: server.app.services.config.publicBaseUrl }));
        printResult(values.json, {
            family_long_id: demo.family.family_long_id,
            name: demo.family.name,
            plan: demo.family.plan,
            key: demo.key,
            key_id: demo.keyId,
            manager_email: demo.manager.email,
            manager_password: demo.manager.password,
            members: demo.members,
            super_admin_email: demo.superAdmin.email,
            super_admin_password: demo.superAdmin.password
        }, () => demoInstructions(demo, baseUrl));
    }
});
