import type { ResourceDeclaration } from './fields';

export const history: ResourceDeclaration = {
    name: 'history',
    singular: 'history entry',
    description: 'Family history: stories and chronicles.',
    idPrefix: 'his',
    table: 'history_entries',
    creatable: true,
    fields: {
        title: { type: 'string', max: 200, required: true, searchable: true, sortable: true, filterable: true, description: 'Title of the story.' },
        period: { type: 'string', max: 100, searchable: true, filterable: true, description: 'Period it covers, for example 1920s.' },
        occurred_on: { type: 'partial_date', sortable: true, filterable: true, description: 'YYYY, YYYY-MM or YYYY-MM-DD.' },
        place: { type: 'string', max: 200, searchable: true, filterable: true, description: 'Where it took place.' },
        person_id: { type: 'reference', references: 'persons', filterable: true, description: 'The main person concerned.' },
        body: { type: 'text', max: 100000, searchable: true, description: 'The story itself.' }
    }
};
