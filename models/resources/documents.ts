import type { ResourceDeclaration } from './fields';

export const documents: ResourceDeclaration = {
    name: 'documents',
    singular: 'document',
    description: 'Certificates, letters and other documents. The file itself is downloaded through `GET /api/v1/documents/{id}/file`, which redirects to a signed link valid for seconds.',
    idPrefix: 'doc',
    table: 'documents',
    creatable: false,
    storesFile: true,
    fields: {
        title: { type: 'string', max: 200, required: true, searchable: true, sortable: true, filterable: true, description: 'Title of the document.' },
        category: { type: 'string', max: 100, searchable: true, sortable: true, filterable: true, description: 'For example certificate, letter, will.' },
        document_date: { type: 'partial_date', sortable: true, filterable: true, description: 'Date of the document: YYYY, YYYY-MM or YYYY-MM-DD.' },
        person_id: { type: 'reference', references: 'persons', filterable: true, description: 'The person it concerns.' },
        description: { type: 'text', max: 10000, searchable: true, description: 'Details.' },
        original_name: { type: 'string', max: 255, writable: false, description: 'File name as uploaded.' },
        media_type: { type: 'string', max: 100, writable: false, filterable: true, description: 'MIME type of the file.' },
        size_bytes: { type: 'integer', writable: false, sortable: true, description: 'File size in bytes.' }
    }
};
