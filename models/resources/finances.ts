import type { ResourceDeclaration } from './fields';

export const financeKinds = ['income', 'expense'] as const;

export const finances: ResourceDeclaration = {
    name: 'finances',
    singular: 'finance entry',
    description: 'Family income and expenses. Amounts are exact integers in the currency\'s minor unit (cents), never floats.',
    idPrefix: 'fin',
    table: 'finances',
    creatable: true,
    fields: {
        description: { type: 'string', max: 200, required: true, searchable: true, sortable: true, filterable: true, description: 'What the money was for.' },
        kind: { type: 'enum', values: financeKinds, required: true, sortable: true, filterable: true, description: 'income or expense.' },
        amount_minor: { type: 'integer', required: true, sortable: true, filterable: true, description: 'Amount in the currency\'s minor unit (1250 = 12.50 EUR).' },
        currency: { type: 'currency', required: true, sortable: true, filterable: true, description: 'ISO 4217 code of a currency in current use, for example EUR.' },
        category: { type: 'string', max: 100, searchable: true, sortable: true, filterable: true, description: 'Free category, for example travel.' },
        occurred_on: { type: 'date', sortable: true, filterable: true, description: 'Date, YYYY-MM-DD.' },
        notes: { type: 'text', max: 10000, searchable: true, description: 'Free notes.' }
    }
};
