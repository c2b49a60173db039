import { fileTitleField, isWritable, maxCharactersOf, resourceNames, resources, systemFields, type FieldDeclaration } from '../../models/resources';

const typeTexts: Record<FieldDeclaration['type'], (field: FieldDeclaration) => string> = {
    string: (field) => `string (≤ ${maxCharactersOf(field)} characters)`,
    text: (field) => `text (≤ ${maxCharactersOf(field)} characters)`,
    enum: (field) => `one of ${(field.values ?? []).map((value) => `\`${value}\``).join(', ')}`,
    date: () => 'date YYYY-MM-DD',
    partial_date: () => 'partial date: YYYY, YYYY-MM or YYYY-MM-DD',
    integer: () => 'integer',
    currency: () => 'ISO 4217 currency code',
    reference: (field) => `id of a ${resources[field.references!].singular}`
};

const tick = (value: boolean | undefined) => (value ? '✓' : '');

/** docs/resources.md: the field reference of every resource, rendered from the declarations. */
export function renderResourceReference(): string {

    const lines = [
        '# Resource fields',
        '',
        'Generated from `models/resources/*.ts` by `npm run docs`; a test fails when it is out of date.',
        '',
        'Every record also carries ' + Object.entries(systemFields).map(([name, field]) => `\`${name}\` (${field.description.replace(/\.$/, '')})`).join(', ') + '.',
        'Create bodies take the writable fields (required ones must be present, unknown fields are refused);',
        'PATCH bodies take any writable fields (at least one; `null` clears an optional field that has no default; one with a default takes one of its values, not `null`).',
        ''
    ];

    for (const name of resourceNames) {
        const resource = resources[name];
        lines.push(`## ${name}`, '', resource.description, '', `Ids look like \`${resource.idPrefix}_…\`. ${resource.storesFile ? `Created by uploading the file: the create body takes \`file_base64\`, \`original_name\` and optional \`mime_type\` with the writable fields below; \`${fileTitleField}\` defaults to the file's name as kept (\`original_name\`) without its extension ([uploads.md](uploads.md)).` : ''}`.trim(), '');
        lines.push('| field | type | required on create | writable | search | sort | filter | meaning |', '|---|---|---|---|---|---|---|---|');
        for (const [fieldName, field] of Object.entries(resource.fields)) {
            const meaning = field.default !== undefined ? `${field.description} Default \`${field.default}\`.` : field.description;
            const requiredOnCreate = field.required && !(resource.storesFile && fieldName === fileTitleField);
            lines.push(`| \`${fieldName}\` | ${typeTexts[field.type](field)} | ${tick(requiredOnCreate)} | ${tick(isWritable(field))} | ${tick(field.searchable)} | ${tick(field.sortable)} | ${tick(field.filterable)} | ${meaning} |`);
        }

        lines.push('');
    }

    return lines.join('\n');
}
