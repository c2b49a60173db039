import { loadPolicies, type Policies, type PolicyFile } from './policy-file';
import { WatchedFiles, type PolicyLog } from './watched-files';

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- the events the class emits, typed, as Node's typings type emitters
export interface PolicyStore {
    on(event: 'reloaded', listener: (policies: Policies) => void): this;
    once(event: 'reloaded', listener: (policies: Policies) => void): this;
}

/**
 * The policies in force: the last good load of a policies directory, of the files registered with it
 * (each plugin declares its own: policy-file.ts). An invalid edit is refused and logged, and the
 * previous policies stay in force until the file is fixed.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class PolicyStore extends WatchedFiles<Policies> {

    /** Loads `files` from `dir`, in their order; throws a PolicyError, so start-up fails with what is wrong. */
    static open(dir: string, log: PolicyLog, files: readonly PolicyFile[]): PolicyStore {

        return new PolicyStore(dir, files.map((file) => file.fileName), () => loadPolicies(dir, files), {
            log, tags: ['policy'], refused: 'policies not reloaded, the last good ones stay in force', reloaded: 'policies reloaded'
        });
    }
}
