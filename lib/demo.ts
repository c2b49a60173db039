import Crypto from 'crypto';

import type { Server } from '@hapi/hapi';

import type { Family } from '../models/family';
import { resourceNames, resources, type ResourceDeclaration, type ResourceName } from '../models/resources';
import { createApiKey } from './accounts/api-keys';
import { createFamily, enableApi } from './accounts/families';
import { createUser } from './accounts/users';
import type { MessagingActor } from './messaging/context';
import { createGroup, startDirectConversation } from './messaging/conversations';
import { sendMessage } from './messaging/messages';
import { demoPdf, demoPhoto } from './demo-files';
import { randomBase62 } from './ids';

/*
 * The demo family: three generations of two families joined by a marriage, with
 * something in every resource, so a first request with the demo key shows real data.
 */

// In creation order: parents before their children. `spouse` names an earlier person; the link is made both ways.
const demoPersons = {
    hans: { first_name: 'Hans', last_name: 'Müller', gender: 'male', birth_date: '1931-04-12', birth_place: 'Köln', death_date: '2008-11-03', death_place: 'Köln' },
    greta: { first_name: 'Greta', last_name: 'Müller', birth_name: 'Schäfer', gender: 'female', birth_date: '1934-07-22', birth_place: 'Düsseldorf', death_date: '2015-02', death_place: 'Bonn', spouse: 'hans' },
    jose: { first_name: 'José', last_name: 'Álvarez', gender: 'male', birth_date: '1929', birth_place: 'Sevilla', death_date: '1999-09-30', death_place: 'Madrid' },
    carmen: { first_name: 'Carmen', last_name: 'Álvarez', birth_name: 'Núñez', gender: 'female', birth_date: '1933-03-08', birth_place: 'Córdoba', spouse: 'jose' },
    klaus: { first_name: 'Klaus', last_name: 'Müller', gender: 'male', birth_date: '1958-06-15', birth_place: 'Köln', parents: ['hans', 'greta'], notes: 'Ran the family bakery until 2010.' },
    maria: { first_name: 'María', last_name: 'Müller', birth_name: 'Álvarez', gender: 'female', birth_date: '1961-12-01', birth_place: 'Madrid', parents: ['jose', 'carmen'], spouse: 'klaus' },
    zoe: { first_name: 'Zoë', last_name: 'Müller', gender: 'female', birth_date: '1988-02-29', birth_place: 'Köln', parents: ['klaus', 'maria'] },
    mateo: { first_name: 'Mateo', last_name: 'Müller', gender: 'male', birth_date: '1991-10-07', birth_place: 'Berlin', parents: ['klaus', 'maria'] }
} as const;

type PersonHandle = keyof typeof demoPersons;
type DemoPerson = Record<string, unknown> & { readonly parents?: readonly [PersonHandle, PersonHandle]; readonly spouse?: PersonHandle };
/** A sample record; `person` names the demo person it concerns. */
type DemoRecord = Record<string, string | number> & { person?: PersonHandle };

const demoRecords: Record<Exclude<ResourceName, 'trees' | 'persons' | FileResourceName>, DemoRecord[]> = {
    events: [
        { title: 'Birth of Zoë', type: 'birth', date: '1988-02-29', place: 'Köln', person: 'zoe' },
        { title: 'Birth of Mateo', type: 'birth', date: '1991-10-07', place: 'Berlin', person: 'mateo' },
        { title: 'Marriage of Klaus and María', type: 'marriage', date: '1985-05-18', place: 'Köln, St. Aposteln', person: 'klaus', description: 'The Álvarez family travelled from Madrid for the wedding.' },
        { title: 'Death of José Álvarez', type: 'death', date: '1999-09-30', place: 'Madrid', person: 'jose' }
    ],
    projects: [
        { title: 'Digitise the Müller photo albums', status: 'active', owner: 'Zoë Müller', due_on: '2026-06-30', description: 'Scan the six albums from the attic, 1950–1990.' },
        { title: 'Family reunion in Sevilla', status: 'planned', owner: 'Mateo Müller', due_on: '2026-08-15' }
    ],
    finances: [
        { description: 'Archive fees, Stadtarchiv Köln', kind: 'expense', amount_minor: 4500, currency: 'EUR', category: 'research', occurred_on: '2025-03-14' },
        { description: 'Photo scanning service', kind: 'expense', amount_minor: 12990, currency: 'EUR', category: 'digitisation', occurred_on: '2025-04-02' },
        { description: 'Reunion contributions', kind: 'income', amount_minor: 60000, currency: 'EUR', category: 'reunion', occurred_on: '2025-05-20', notes: 'Six households, 100.00 EUR each.' }
    ],
    history: [
        { title: 'The bakery on the Severinstraße', period: '1960s', occurred_on: '1962', place: 'Köln', person: 'hans', body: 'Hans opened the bakery in 1962; Greta kept the books and Klaus grew up in the flat above it.' },
        { title: 'From Madrid to Köln', period: '1980s', occurred_on: '1984', place: 'Köln', person: 'maria', body: 'María came to Köln to study German in 1984 and met Klaus at the bakery counter.' }
    ]
};

type FileResourceName = 'gallery' | 'documents';
/** A gallery item or document: its fields, and its file, made from them (demo-files.ts). */
type DemoFileRecord = { record: DemoRecord; original_name: string; file: (record: DemoRecord) => Buffer | Promise<Buffer> };

const pdfOf = (record: DemoRecord) => demoPdf(String(record.title), String(record.document_date));

// Stored as an upload stores them: files that count against the quota and that the signed URLs serve.
const demoFileRecords: Record<FileResourceName, DemoFileRecord[]> = {
    gallery: [
        { record: { title: 'Hans and Greta\'s wedding', taken_on: '1956-09', place: 'Köln', person: 'hans' }, original_name: 'hochzeit-1956.png', file: () => demoPhoto(0) },
        { record: { title: 'The Álvarez family in Sevilla', taken_on: '1965', place: 'Sevilla', person: 'carmen' }, original_name: 'sevilla-1965.png', file: () => demoPhoto(1) }
    ],
    documents: [
        { record: { title: 'Birth certificate of Zoë Müller', category: 'certificate', document_date: '1988-03-02', person: 'zoe' }, original_name: 'geburtsurkunde-zoe.pdf', file: pdfOf },
        { record: { title: 'Letter from José to Carmen', category: 'letter', document_date: '1952-06', person: 'jose' }, original_name: 'carta-1952.pdf', file: pdfOf }
    ]
};

export interface DemoFamily {
    family: Family;
    /** The API key in full: shown once. */
    key: string;
    keyId: string;
    /** A manager who can sign in to the hosted site; the password is shown once. */
    manager: { email: string; password: string };
    /** A super-admin for the hosted site's admin area; the password is shown once. */
    superAdmin: { email: string; password: string };
    /** Two members of the family who message with the manager on /messages; their passwords are shown once. */
    members: { email: string; password: string }[];
}

/** A direct conversation and a group, with a few messages each, between the manager (first) and the two members. */
async function seedConversations(server: Server, actors: MessagingActor[]): Promise<void> {

    const { messaging } = server.app.services;
    const [manager, zoe, mateo] = actors;
    const say = (actor: MessagingActor, conversationId: string, body: string) => sendMessage(messaging, actor, conversationId, { body });

    const { conversation: direct } = await startDirectConversation(messaging, manager, zoe.userId);
    await say(manager, direct.id, 'Zoë, did you find the box with the 1956 wedding photos?');
    await say(zoe, direct.id, 'Yes, in the attic! I scanned them last night: they are in the gallery now.');
    await say(manager, direct.id, 'Wonderful, thank you. Oma would have loved to see them in colour.');

    const group = await createGroup(messaging, manager, 'Family reunion in Sevilla', [zoe.userId, mateo.userId]);
    await say(mateo, group.id, 'I booked the patio at the restaurant near the cathedral for August 15th.');
    await say(zoe, group.id, 'Perfect. Shall we bring the album so Carmen can tell the stories behind the pictures?');
    await say(manager, group.id, 'Yes please. I will ask her which ones she wants copies of.');
}

/**
 * Creates a new demo family with the API on for every resource, a manager, two members, a super-admin, a key with every
 * operation, sample records (gallery items and documents with their files) and a few conversations between its users.
 */
export async function seedDemoFamily(server: Server): Promise<DemoFamily> {

    const { accounts } = server.app.services;
    const created = await createFamily(accounts, { name: 'The Demo Family', plan: 'family' });
    const family = await enableApi(accounts, created.family_long_id, resourceNames);

    const manager = { email: `demo-manager-${Crypto.randomBytes(4).toString('hex')}@example.com`, password: randomBase62(16) };
    const user = await createUser(accounts, { ...manager, familyLongId: family.family_long_id, role: 'manager' });
    const superAdmin = { email: `demo-admin-${Crypto.randomBytes(4).toString('hex')}@example.com`, password: randomBase62(16) };
    await createUser(accounts, { ...superAdmin, role: 'super-admin' });
    const members = ['zoe', 'mateo'].map((name) => ({ email: `demo-${name}-${Crypto.randomBytes(4).toString('hex')}@example.com`, password: randomBase62(16) }));
    const memberUsers = [];
    for (const member of members) {
        memberUsers.push(await createUser(accounts, { ...member, familyLongId: family.family_long_id, role: 'member' }));
    }

    const { key, apiKey } = await createApiKey(accounts, {
        familyLongId: family.family_long_id,
        name: 'Demo key',
        resources: resourceNames,
        operations: accounts.policies().scopes.operations.map((operation) => operation.name),
        createdBy: user.id
    });

    // Trusted seeding: createRecord writes each record with its change event, even where the API has no create route.
    const recordsApi = server.plugins.records;
    const createRecord = (resource: ResourceDeclaration, values: Record<string, unknown>) => recordsApi.createRecord(family.family_long_id, resource, values);
    const tree = await createRecord(resources.trees, { name: 'Müller–Álvarez', description: 'The Müllers of Köln and the Álvarez family of Sevilla and Madrid, joined in 1985.' });
    const personIds = {} as Record<PersonHandle, string>;
    for (const [handle, person] of Object.entries(demoPersons) as [PersonHandle, DemoPerson][]) {
        const { parents, spouse, ...values } = person;
        const links = {
            ...(parents ? { parent_1_id: personIds[parents[0]], parent_2_id: personIds[parents[1]] } : {}),
            ...(spouse ? { spouse_id: personIds[spouse] } : {})
        };
        personIds[handle] = (await createRecord(resources.persons, { ...values, ...links, tree_id: tree.id })).id;
        if (spouse) {
            await recordsApi.updateRecord(family.family_long_id, resources.persons, personIds[spouse], { spouse_id: personIds[handle] });
        }
    }

    const withPerson = ({ person, ...values }: DemoRecord) => (person ? { ...values, person_id: personIds[person] } : values);
    for (const [name, records] of Object.entries(demoRecords)) {
        for (const record of records) {
            await createRecord(resources[name as ResourceName], withPerson(record));
        }
    }

    const owner = { familyLongId: family.family_long_id, plan: family.plan };
    for (const [name, fileRecords] of Object.entries(demoFileRecords) as [FileResourceName, DemoFileRecord[]][]) {
        for (const { record, original_name: originalName, file } of fileRecords) {
            await server.plugins.files.storeFile(owner, name, { data: await file(record), originalName, metadata: withPerson(record) });
        }
    }

    await seedConversations(server, [user, ...memberUsers].map((seeded) => ({ userId: seeded.id, familyLongId: family.family_long_id, isManager: seeded.role === 'manager' })));
    return { family, key, keyId: apiKey.id, manager, superAdmin, members };
}
