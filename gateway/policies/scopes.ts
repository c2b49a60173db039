import Joi from 'joi';

import { aggregateResourceName, resourceNames } from '../../models/resources';
import { policyFile } from './policy-file';
import { listsEvery, listsEveryMessage, namedList, namesIn, uniqueStrings } from './schema-parts';

export interface OperationPolicy {
    name: string;
    description: string;
    write: boolean;
}

/** A query parameter (or parameter prefix, e.g. `filter[`) that adds an operation a read request needs. */
export interface QueryOperation {
    parameter?: string;
    parameter_prefix?: string;
    operation: string;
}

export interface ScopesPolicy {
    resources: string[];
    aggregate_resource: string;
    operations: OperationPolicy[];
    query_operations: QueryOperation[];
    legacy_key_operations: string[];
    default_key_operations: string[];
}

declare module './policy-file' {
    interface Policies {
        scopes: ScopesPolicy;
    }
}

const declaredOperation = Joi.string().valid(Joi.in('/operations', { adjust: (operations) => namesIn(operations) }))
    .messages({ 'any.only': '"{#value}" is not an operation declared in operations' });

/** Operations a key may hold without an explicit grant: declared and not `write`. */
function readOnlyOperations(why: string): Joi.ArraySchema {

    return uniqueStrings(Joi.string().valid(Joi.in('/operations', { adjust: (operations) => namesIn(operations, (operation) => operation.write !== true) }))
        .messages({ 'any.only': `"{#value}" is not a declared read-only operation (${why})` }));
}

/** Context of the scopes schema: the resources the records API serves (models/resources), and the name of their aggregate. */
type ScopesContext = { resourceNames: readonly string[]; aggregateResourceName: string };

/** policies/scopes.yaml: the resources and operations a credential can be granted. */
export const scopesFile = policyFile({
    fileName: 'scopes.yaml',
    key: 'scopes',
    // The routes declare these names (plugins.gateway): a name they do not use would answer 403 to every request.
    schema: Joi.object<ScopesPolicy, true>({
        resources: uniqueStrings(Joi.string().valid(Joi.in('$resourceNames'))
            .messages({ 'any.only': '"{#value}" is not a resource of the records API; those are {$resourceNames}' })).min(1).required()
            .custom(listsEvery('resourceNames', 'resource of the records API'))
            .messages(listsEveryMessage),
        aggregate_resource: Joi.string().required().valid(Joi.ref('$aggregateResourceName'))
            .messages({ 'any.only': '"{#value}" is not the aggregate the records API serves, "{$aggregateResourceName}"' }),
        operations: namedList(Joi.object<OperationPolicy, true>({
            name: Joi.string().required(),
            description: Joi.string().required(),
            write: Joi.boolean().default(false)
        })).min(1).required(),
        query_operations: Joi.array().items(Joi.object<QueryOperation, true>({
            parameter: Joi.string(),
            parameter_prefix: Joi.string(),
            operation: declaredOperation.required()
        }).xor('parameter', 'parameter_prefix')).required(),
        legacy_key_operations: readOnlyOperations('legacy keys can never be widened to writes').required(),
        default_key_operations: readOnlyOperations('write operations always need an explicit grant').required()
    }),
    context: (): ScopesContext => ({ resourceNames, aggregateResourceName })
});
