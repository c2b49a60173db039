import type { ResourceDeclaration } from './fields';

export const eventTypes = ['birth', 'baptism', 'marriage', 'divorce', 'death', 'burial', 'graduation', 'migration', 'reunion', 'anniversary', 'other'] as const;

export const events: ResourceDeclaration = {
    name: 'events',
    singular: 'event',
    description: 'Life and family events.',
    idPrefix: 'evt',
    table: 'events',
    creatable: true,
    fields: {
        title: { type: 'string', max: 200, required: true, searchable: true, sortable: true, filterable: true, description: 'What happened.' },
        type: { type: 'enum', values: eventTypes, default: 'other', sortable: true, filterable: true, description: `One of ${eventTypes.join(', ')}.` },
        date: { type: 'partial_date', sortable: true, filterable: true, description: 'YYYY, YYYY-MM or YYYY-MM-DD.' },
        place: { type: 'string', max: 200, searchable: true, filterable: true, description: 'Where it happened.' },
        person_id: { type: 'reference', references: 'persons', filterable: true, description: 'The main person concerned.' },
        description: { type: 'text', max: 10000, searchable: true, description: 'Details.' }
    }
};
