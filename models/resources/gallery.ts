import type { ResourceDeclaration } from './fields';

export const gallery: ResourceDeclaration = {
    name: 'gallery',
    singular: 'gallery item',
    description: 'Photos and other pictures. Each record carries `url`, a signed link to the image that works until `url_expires_at` (10 to 15 minutes ahead by default; the link stays the same for 5 minutes, so browsers can cache the picture).',
    idPrefix: 'gal',
    table: 'gallery_items',
    creatable: false,
    storesFile: true,
    fields: {
        title: { type: 'string', max: 200, required: true, searchable: true, sortable: true, filterable: true, description: 'Title or caption.' },
        description: { type: 'text', max: 10000, searchable: true, description: 'Longer description.' },
        taken_on: { type: 'partial_date', sortable: true, filterable: true, description: 'When it was taken: YYYY, YYYY-MM or YYYY-MM-DD.' },
        place: { type: 'string', max: 200, searchable: true, filterable: true, description: 'Where it was taken.' },
        person_id: { type: 'reference', references: 'persons', filterable: true, description: 'The person it shows.' },
        original_name: { type: 'string', max: 255, writable: false, description: 'File name as uploaded.' },
        media_type: { type: 'string', max: 100, writable: false, filterable: true, description: 'MIME type of the file.' },
        size_bytes: { type: 'integer', writable: false, sortable: true, description: 'File size in bytes.' }
    }
};
