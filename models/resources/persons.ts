import type { ResourceDeclaration } from './fields';

export const genders = ['female', 'male', 'other', 'unknown'] as const;

export const persons: ResourceDeclaration = {
    name: 'persons',
    singular: 'person',
    description: 'People in the family records.',
    idPrefix: 'per',
    table: 'persons',
    creatable: true,
    fields: {
        tree_id: { type: 'reference', references: 'trees', filterable: true, description: 'The tree this person belongs to.' },
        first_name: { type: 'string', max: 100, required: true, searchable: true, sortable: true, filterable: true, description: 'Given name(s).' },
        last_name: { type: 'string', max: 100, required: true, searchable: true, sortable: true, filterable: true, description: 'Family name.' },
        birth_name: { type: 'string', max: 100, searchable: true, filterable: true, description: 'Family name at birth, when it differs.' },
        gender: { type: 'enum', values: genders, default: 'unknown', sortable: true, filterable: true, description: 'One of female, male, other, unknown.' },
        birth_date: { type: 'partial_date', sortable: true, filterable: true, description: 'YYYY, YYYY-MM or YYYY-MM-DD.' },
        birth_place: { type: 'string', max: 200, searchable: true, filterable: true, description: 'Place of birth.' },
        death_date: { type: 'partial_date', sortable: true, filterable: true, description: 'YYYY, YYYY-MM or YYYY-MM-DD; not before birth_date.' },
        death_place: { type: 'string', max: 200, searchable: true, filterable: true, description: 'Place of death.' },
        notes: { type: 'text', max: 20000, searchable: true, description: 'Free notes.' },
        parent_1_id: { type: 'reference', references: 'persons', filterable: true, description: 'A parent of this person.' },
        parent_2_id: { type: 'reference', references: 'persons', filterable: true, description: 'The other parent of this person.' },
        spouse_id: { type: 'reference', references: 'persons', filterable: true, description: 'Spouse or partner.' }
    }
};
