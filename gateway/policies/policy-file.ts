import Path from 'path';
import type Joi from 'joi';

import { readDataFile } from './data-file';

/**
 * The policies in force, each file's under the key it registers. Empty here: the owner of each
 * file adds its own key (TypeScript's declaration merging, as hapi plugins add theirs to
 * `PluginProperties`), next to the file's schema.
 */
export interface Policies {
    loadedAt: Date;
}

/** A data file of the policies directory, declared by the plugin that owns it and registered with the policy store at composition. */
export interface PolicyFile<Key extends keyof Policies = keyof Policies, Document = unknown> {
    fileName: string;
    key: Key;
    schema: Joi.ObjectSchema<Document>;
    /** What the schema refers to (`$name`) in files registered before it, or in the code. */
    context?: (loaded: Partial<Policies>) => Joi.Context;
    /** The validated document as the service uses it (plans indexed by name); as validated when absent. */
    toPolicy?: (document: Document) => Policies[Key];
}

/** Declares a policy file: the types of its parts are checked against each other here. */
export function policyFile<Key extends keyof Policies, Document>(file: PolicyFile<Key, Document>): PolicyFile {

    return file as unknown as PolicyFile;
}

/** A file registered before `by`, which refers to it: the order of registration is a programming error otherwise. */
export function loadedBefore<Key extends keyof Policies>(loaded: Partial<Policies>, key: Key, by: string): Policies[Key] {

    const policy = loaded[key];
    if (policy === undefined) {
        throw new Error(`${by} refers to the policy "${key}": register its file before ${by}`);
    }

    return policy as Policies[Key];
}

/**
 * Loads and validates `files` in `dir`, in their order (a file after those it refers to). Throws a
 * PolicyError naming file, path and problem; the first invalid file stops the load.
 */
export function loadPolicies(dir: string, files: readonly PolicyFile[]): Policies {

    const loaded: Partial<Record<keyof Policies, unknown>> = {};
    for (const file of files) {
        const document = readDataFile<unknown>(Path.join(dir, file.fileName), file.schema, file.context?.(loaded as Partial<Policies>));
        loaded[file.key] = file.toPolicy ? file.toPolicy(document) : document;
    }

    return { ...loaded, loadedAt: new Date() } as Policies;
}

/** Indexes a file's list of named entities by name. */
export function byName<T extends { name: string }>(entities: T[]): Map<string, T> {

    return new Map(entities.map((entity) => [entity.name, entity]));
}
