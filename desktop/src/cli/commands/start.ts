import { OfflineError } from '../../sdk/errors';
import { command } from '../command';
import { CliError, exitCodes, UsageError } from '../errors';
import { conversationName, People } from '../names';
import { withClient } from '../open-client';

const usage = 'start <person>… [--title TITLE]';

export const startCommand = command({
    usage,
    summary: 'start a conversation with a person, or a group',
    description: [
        'With one person, opens your direct conversation with them (the one you have, if you have one). With',
        '--title, starts a group of you and the people named. A <person> is their email, the beginning of it,',
        'or their id (usr_…). It needs the service: offline nothing is started (exit code 3).'
    ].join('\n'),
    options: {
        title: { type: 'string' }
    },
    positionals: ['<person>'],
    variadic: true,
    async run({ values, positionals: names, output }) {

        const title = values.title?.trim();
        if (values.title !== undefined && !title) {
            throw new UsageError('--title must not be empty', usage);
        }

        if (names.length > 1 && title === undefined) {
            throw new UsageError('a conversation of more than two is a group: give it a --title', usage);
        }

        const notStarted = (offline: OfflineError) => new CliError(`offline: ${offline.message} Nothing was started: try again once connected.`, 'offline', exitCodes.offline);
        await withClient(values.profile, async (client) => {

            const people = await People.of(client, { ask: true });
            if (people.unreachable) {
                throw notStarted(people.unreachable);
            }

            const userIds = [...new Set(names.map((name) => people.find(name)))];
            let conversation;
            try {
                conversation = await client.startConversation(title === undefined ? { with: userIds[0] } : { title, memberIds: userIds });
            }
            catch (error) {
                throw error instanceof OfflineError ? notStarted(error) : error;
            }

            const name = conversationName(conversation, people, client.profile.userId);
            output.result({ conversation: { ...conversation, name } }, () => [
                `✓ ${conversation.kind === 'group' ? `Group "${name}" of ${conversation.member_ids.length}` : `Conversation with ${name}`}: ${conversation.id}`,
                `  family-records-desktop send ${conversation.id} <text>`
            ]);
        });
    }
});
