import type { ResourceDeclaration } from './fields';

export const projectStatuses = ['planned', 'active', 'on_hold', 'done'] as const;

export const projects: ResourceDeclaration = {
    name: 'projects',
    singular: 'project',
    description: 'Family projects: research, reunions, books.',
    idPrefix: 'prj',
    table: 'projects',
    creatable: true,
    fields: {
        title: { type: 'string', max: 200, required: true, searchable: true, sortable: true, filterable: true, description: 'Name of the project.' },
        status: { type: 'enum', values: projectStatuses, default: 'planned', sortable: true, filterable: true, description: `One of ${projectStatuses.join(', ')}.` },
        owner: { type: 'string', max: 200, searchable: true, filterable: true, description: 'Who leads it.' },
        due_on: { type: 'date', sortable: true, filterable: true, description: 'Due date, YYYY-MM-DD.' },
        description: { type: 'text', max: 10000, searchable: true, description: 'Details.' }
    }
};
