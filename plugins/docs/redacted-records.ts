import type { LivingPersonsPolicy } from '../../lib/privacy/living-persons';
import { hiddenFields, personIdColumn, redactedFields, redactedValue } from '../../lib/privacy/redaction';
import { resourceNames, resources, type ResourceDeclaration, type ResourceName } from '../../models/resources';
import type { JsonSchema } from './openapi-types';
import { inWords } from './words';

/*
 * What the reference says of the records a key with `living_persons: redacted` reads, told from lib/privacy (the
 * fields it hides, the value it shows instead) and the resource declarations, as the records API redacts them.
 */

const redactedKey = 'a key whose `living_persons` is `redacted`';

const quoted = (names: readonly string[]) => names.map((name) => `\`${name}\``);

/** Whether a key with `living_persons: redacted` may read records of `resource` redacted. */
export const redactable = (resource: ResourceDeclaration): boolean => personIdColumn(resource) !== undefined;

/** Who is presumed living, in the policy's terms. */
export const livingRule = (policy: LivingPersonsPolicy): string =>
    `A person is presumed living unless they have a \`death_date\`, a \`death\` or \`burial\` event, or a \`birth_date\` (lacking it, the earliest \`date\` of their events) more than ${policy.maxAgeYears} years ago, a partial date counting from its last possible day (policies/privacy.yaml); of unknown birth and no dated event, they are presumed living.`;

/** When a record of `resource` is redacted: its person is presumed living, the record's own or the one its `person_id` names. */
function whenRedacted(resource: ResourceDeclaration): string {

    return personIdColumn(resource) === 'id' ? 'when the person is presumed living' : 'when its `person_id` is a person presumed living';
}

/** The `redacted` flag every record schema carries: present only in the answers of a redacted key. */
export function redactedProperty(resource: ResourceDeclaration, policy: LivingPersonsPolicy): JsonSchema {

    const only = `Only in the answers of ${redactedKey} (absent for \`full\`, the default).`;
    if (!redactable(resource)) {
        return { type: 'boolean', readOnly: true, description: `${only} Always false: a ${resource.singular} is never redacted.` };
    }

    const shown = Object.keys(resource.fields).flatMap((name) => {

        const value = redactedValue(resource, name, { cutoff: '', name: policy.redactedName });
        return value === null ? [] : [`\`${name}\` reads "${value}"`];
    });
    const file = resource.storesFile ? ', it has no file link and its file answers 404 `not_found`' : '';
    return {
        type: 'boolean',
        readOnly: true,
        description: `${only} True ${whenRedacted(resource)}: ${[...shown, `${inWords(quoted(hiddenFields(resource)), 'and')} are null`].join(', ')}${file}; ids, references, the other fields, \`revision\` and the timestamps stay. False on every other ${resource.singular}.`
    };
}

/** A field's property, when a redacted record shows it differently: its value there (`x-redacted-value`), null allowed. */
export function redactedFieldProperty(resource: ResourceDeclaration, name: string, property: JsonSchema, policy: LivingPersonsPolicy): JsonSchema {

    if (!redactable(resource) || !redactedFields(resource).includes(name)) {
        return property;
    }

    const value = redactedValue(resource, name, { cutoff: '', name: policy.redactedName });
    const types = [property.type].flat();
    return {
        ...property,
        ...(value === null && !types.includes('null') ? { type: [...types, 'null'] } : {}),
        'x-redacted-value': value
    };
}

/** The resources whose records a route's list reads: its own, or every one for the aggregate. */
const readBy = (resource: string | undefined, aggregateResource: string): ResourceDeclaration[] =>
    (resource === aggregateResource ? Object.values(resources) : resourceNames.includes(resource as ResourceName) ? [resources[resource as ResourceName]] : []);

/** What a list's query parameter does to redacted records, for a route of `resource`; undefined when nothing. */
export function redactedParameterNote(parameter: string, resource: string | undefined, aggregateResource: string): string | undefined {

    const read = readBy(resource, aggregateResource).filter(redactable);
    const filtered = /^filter\[(.+)\]$/.exec(parameter)?.[1];
    if (parameter === 'search' && read.length > 0) {
        return `With ${redactedKey}, it never matches a redacted record.`;
    }

    if (parameter === 'sort' && read.some((declaration) => redactedFields(declaration).some((name) => declaration.fields[name]?.sortable))) {
        return `With ${redactedKey}, redacted records sort as empty (last) by a field they hide.`;
    }

    if (filtered && read.some((declaration) => redactedFields(declaration).includes(filtered))) {
        return `With ${redactedKey}, it never matches a redacted record.`;
    }

    return undefined;
}

/** The reference's introduction to redacted keys. */
export function livingPersonsIntroduction(policy: LivingPersonsPolicy): string {

    const concerned = Object.values(resources).filter((resource) => personIdColumn(resource) === 'person_id');
    const withFiles = concerned.filter((resource) => resource.storesFile).map((resource) => resource.name);
    return [
        'A key\'s `living_persons` option, chosen on the site or with the CLI, is `full` (the default) or `redacted`.',
        `With \`redacted\`, persons presumed living, and the ${inWords(concerned.map((resource) => resource.name), 'and')} records whose \`person_id\` is one of them, are redacted records in every answer and format: \`redacted: true\`, and what each record schema's \`redacted\` says hidden is null (\`x-redacted-value\`); every other record carries \`redacted: false\`. The files of redacted ${inWords(withFiles, 'and')} records answer 404 \`not_found\`.`,
        'Searches and filters never match a redacted record on a field it hides, and a sort by such a field orders redacted records as empty (last).',
        'Such a key cannot change or delete a redacted record, nor name a person presumed living in a reference: 403 `living_person_protected`.',
        livingRule(policy),
        'The change stream and webhooks carry no record data, for either kind of key.'
    ].join(' ');
}
