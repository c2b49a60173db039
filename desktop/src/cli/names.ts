import type { DesktopClient } from '../engine/desktop-client';
import { OfflineError } from '../sdk/errors';
import type { Conversation, Person } from '../sdk/types';
import { CliError } from './errors';

/** Where the people of the family are kept between runs, for naming conversations offline. */
const peopleState = 'cli-people';

/** The emails of the people a conversation can hold, by user id: you, and the family's people as last seen. */
export class People {
    /** `unreachable`: the service was asked and did not answer, so these are the people kept from before. */
    private constructor(private readonly emails: Map<string, string>, private readonly me: string, readonly unreachable?: OfflineError) { }

    /** Asks the service for the family's people when `ask` (and keeps them); otherwise, or offline, those kept. */
    static async of(client: DesktopClient, options: { ask: boolean }): Promise<People> {

        let people = await client.store.getState<Person[]>(peopleState);
        let unreachable: OfflineError | undefined;
        if (options.ask || !people) {
            try {
                people = await client.api.people();
                await client.store.setState(peopleState, people);
            }
            catch (error) {
                if (!(error instanceof OfflineError)) {
                    throw error;
                }

                unreachable = error;
            }
        }

        const emails = new Map((people ?? []).map((person) => [person.id, person.email]));
        emails.set(client.profile.userId, client.profile.email);
        return new People(emails, client.profile.userId, unreachable);
    }

    /** A user's email, or their id when they are not known here. */
    email(userId: string): string {

        return this.emails.get(userId) ?? userId;
    }

    /** The user id of another person of the family named by their id, their email, or the beginning of it (which must fit one). */
    find(name: string): string {

        const others = [...this.emails].filter(([id]) => id !== this.me);
        const lower = name.toLowerCase();
        const exact = others.filter(([id, email]) => id === name || email.toLowerCase() === lower);
        const found = exact.length > 0 ? exact : others.filter(([, email]) => email.toLowerCase().startsWith(lower));
        if (found.length === 1) {
            return found[0][0];
        }

        if (found.length > 1) {
            throw new CliError(`"${name}" fits ${found.length} people: ${found.map(([, email]) => email).join(', ')}; give more of the email`, 'ambiguous_person');
        }

        const mine = name === this.me || this.emails.get(this.me)!.toLowerCase().startsWith(lower);
        throw new CliError(mine ? `"${name}" is you: name the others of the conversation` : `no one of your family is called "${name}"`, 'unknown_person');
    }
}

/** How a conversation is called for a person: a group's title, a direct conversation's other person. */
export function conversationName(conversation: Conversation, people: People, me: string): string {

    if (conversation.kind === 'group') {
        return conversation.title ?? '(untitled group)';
    }

    const other = conversation.member_ids.find((id) => id !== me);
    return other ? people.email(other) : '(only you)';
}

/** The conversations whose id is `name`, or whose name begins with it (case aside). */
function matching(conversations: Conversation[], name: string, people: People, me: string): Conversation[] {

    const exact = conversations.filter((conversation) => conversation.id === name);
    if (exact.length > 0) {
        return exact;
    }

    const prefix = name.toLowerCase();
    return conversations.filter((conversation) => conversationName(conversation, people, me).toLowerCase().startsWith(prefix));
}

/** Syncs the local copy; false when the service does not answer. */
async function caughtUp(client: DesktopClient): Promise<boolean> {

    try {
        await client.sync();
        return true;
    }
    catch (error) {
        if (error instanceof OfflineError) {
            return false;
        }

        throw error;
    }
}

/**
 * The conversation a command line names: by its id (`cnv_…`) or by the beginning of its title or of the other
 * person's email, which must fit one conversation only. Looks in the local copy, then, if none fits, syncs it once.
 */
export async function findConversation(client: DesktopClient, name: string): Promise<{ conversation: Conversation; people: People }> {

    const me = client.profile.userId;
    let offline = false;
    for (const fresh of [false, true]) {
        if (fresh && !await caughtUp(client)) {
            offline = true;
            break;
        }

        const people = await People.of(client, { ask: fresh });
        const found = matching(await client.store.conversations(), name, people, me);
        if (found.length === 1) {
            return { conversation: found[0], people };
        }

        if (found.length > 1) {
            const names = found.map((conversation) => `${conversation.id} (${conversationName(conversation, people, me)})`).join(', ');
            throw new CliError(`"${name}" fits ${found.length} conversations: ${names}; give more of the name, or the id`, 'ambiguous_conversation');
        }
    }

    throw new CliError(`no conversation is called "${name}"${offline ? ' among those kept on this computer (the service does not answer)' : ''}: \`family-records-desktop conversations\` lists them`, 'unknown_conversation');
}
