import { command } from '../command';
import { withClient } from '../open-client';

export const peopleCommand = command({
    usage: 'people',
    summary: 'the people of your family you can start a conversation with',
    description: [
        'Lists the people of your family you can message, by email (what `start` takes), and marks those you',
        'blocked. It asks the service: offline it says so (exit code 3).'
    ].join('\n'),
    options: {},
    async run({ values, output }) {

        await withClient(values.profile, async (client) => {

            const people = await client.api.people();
            output.result({ people }, () => (people.length === 0
                ? ['No one else of your family can be messaged yet.']
                : people.map((person) => `${person.id}  ${person.email}${person.blocked ? '  (you blocked them)' : ''}`)));
        });
    }
});
