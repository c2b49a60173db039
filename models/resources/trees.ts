import type { ResourceDeclaration } from './fields';

export const trees: ResourceDeclaration = {
    name: 'trees',
    singular: 'tree',
    description: 'Family trees: named collections of persons.',
    idPrefix: 'tre',
    table: 'trees',
    creatable: true,
    fields: {
        name: { type: 'string', max: 200, required: true, searchable: true, sortable: true, filterable: true, description: 'Name of the tree.' },
        description: { type: 'text', max: 10000, searchable: true, description: 'What the tree covers.' }
    }
};
