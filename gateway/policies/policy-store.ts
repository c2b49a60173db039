import Crypto from 'crypto';
import { EventEmitter } from 'events';
import Fs from 'fs';
import Path from 'path';

import { loadPolicies, POLICY_FILE_NAMES } from './load';
import type { Policies } from './types';

export type PolicyLog = (tags: string[], message: string) => void;

// Editors save in bursts (truncate, write, rename): reload once the burst is over.
const RELOAD_DEBOUNCE_MS = 100;

// How often each policy file is stat'ed, for the changes a directory watch cannot see (watch() says which).
const POLL_INTERVAL_MS = 1000;

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- the events the class emits, typed, as Node's typings type emitters
export interface PolicyStore {
    on(event: 'reloaded', listener: (policies: Policies) => void): this;
    once(event: 'reloaded', listener: (policies: Policies) => void): this;
}

/**
 * The policies in force: the last good load of a policies directory. An invalid edit is refused
 * and logged, and the previous policies stay in force until the file is fixed.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class PolicyStore extends EventEmitter {

    private policies: Policies;
    /** What the files held when they were last loaded, valid or not: a watcher reloads only when that changed. */
    private loadedContents: string;
    private watcher?: Fs.FSWatcher;
    private pendingReload?: NodeJS.Timeout;

    private constructor(private readonly dir: string, private readonly log: PolicyLog) {

        super();
        this.loadedContents = this.contents();
        this.policies = loadPolicies(dir);
    }

    /** Loads the policies in `dir`; throws a PolicyError, so start-up fails with what is wrong. */
    static open(dir: string, log: PolicyLog): PolicyStore {

        return new PolicyStore(dir, log);
    }

    current(): Policies {

        return this.policies;
    }

    /** Loads the files again; returns false, logging why, when they are invalid. */
    reload(): boolean {

        return this.load(this.contents());
    }

    /** reload(), the files' digest `contents` already taken. */
    private load(contents: string): boolean {

        this.loadedContents = contents;
        try {
            // One assignment: a request sees either the old policies or the new, never a mix.
            this.policies = loadPolicies(this.dir);
        }
        catch (error) {
            this.log(['policy', 'error'], `policies not reloaded, the last good ones stay in force:\n${(error as Error).message}`);
            return false;
        }

        this.log(['policy', 'info'], 'policies reloaded');
        this.emit('reloaded', this.policies);
        return true;
    }

    /** Reloads when a policy file changes on disk, and on SIGHUP. */
    watch(): void {

        if (this.watcher) {
            return;
        }

        // The directory, not the files: an editor that saves by renaming a new file over the
        // old one would leave a file watcher on the replaced file.
        this.watcher = Fs.watch(this.dir, (event, filename) => {

            if (filename === null || POLICY_FILE_NAMES.includes(filename)) {
                this.scheduleReload();
            }
        });

        this.watcher.on('error', (error) => this.log(['policy', 'error'], `watching ${this.dir} failed, edits need a SIGHUP: ${error.message}`));
        // The server keeps the process alive; a store left watching should not.
        this.watcher.unref();

        // A directory watch stays on the directory it found, so it misses a policies directory that is a symlink
        // switched to another (a release), a Kubernetes ConfigMap (its files are symlinks through `..data`,
        // which is switched), and a directory deleted and created again. Polling stat()s each path, following
        // symlinks, and sees all of them within a second.
        for (const file of this.files()) {
            Fs.watchFile(file, { interval: POLL_INTERVAL_MS, persistent: false }, this.onFileChanged);
        }

        this.reloadOnSighup();
    }

    /** Reloads on SIGHUP only: what a running service does when it does not watch the files (WATCH_POLICIES=false). */
    reloadOnSighup(): void {

        // Once, however often it is called: watch() calls it too.
        process.removeListener('SIGHUP', this.onSighup);
        process.on('SIGHUP', this.onSighup);
    }

    close(): void {

        clearTimeout(this.pendingReload);
        this.watcher?.close();
        this.watcher = undefined;
        for (const file of this.files()) {
            Fs.unwatchFile(file, this.onFileChanged);
        }

        process.removeListener('SIGHUP', this.onSighup);
    }

    private readonly onSighup = (): void => {

        this.reload();
    };

    private readonly onFileChanged = (): void => {

        this.scheduleReload();
    };

    private scheduleReload(): void {

        clearTimeout(this.pendingReload);
        this.pendingReload = setTimeout(() => this.reloadIfChanged(), RELOAD_DEBOUNCE_MS);
        this.pendingReload.unref();
    }

    // Both the watch and the poll report most edits: the second finds nothing new, and reloads nothing.
    private reloadIfChanged(): void {

        const contents = this.contents();
        if (contents !== this.loadedContents) {
            this.load(contents);
        }
    }

    private files(): string[] {

        return POLICY_FILE_NAMES.map((name) => Path.join(this.dir, name));
    }

    /** A digest of every policy file's text, a missing file included. */
    private contents(): string {

        const hash = Crypto.createHash('sha256');
        for (const file of this.files()) {
            hash.update(`${file}\0${readIfPresent(file) ?? '(missing)'}\0`);
        }

        return hash.digest('hex');
    }
}

function readIfPresent(file: string): string | undefined {

    try {
        return Fs.readFileSync(file, 'utf8');
    }
    catch {
        return undefined;           // loadPolicies() says what is wrong with it
    }
}
