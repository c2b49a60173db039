import Crypto from 'crypto';
import { EventEmitter } from 'events';
import Fs from 'fs';
import Path from 'path';

export type PolicyLog = (tags: string[], message: string) => void;

// Editors save in bursts (truncate, write, rename): reload once the burst is over.
const RELOAD_DEBOUNCE_MS = 100;

// How often each file is stat'ed, for the changes a directory watch cannot see (watch() says which).
const POLL_INTERVAL_MS = 1000;

/** What a store of watched files calls what it holds, in its log lines (`policies`, `gateway.yaml`). */
export interface WatchedFilesLog {
    log: PolicyLog;
    tags: string[];
    /** `policies not reloaded, the last good ones stay in force`: the message on a refused edit. */
    refused: string;
    reloaded: string;
}

/**
 * The last good load of some data files, reloaded when one changes on disk or on SIGHUP. An
 * invalid edit is refused and logged, and the previous value stays in force until the file is fixed.
 * Emits `reloaded` with the new value.
 */
export class WatchedFiles<T> extends EventEmitter {

    private value: T;
    /** What the files held when they were last loaded, valid or not: a watcher reloads only when that changed. */
    private loadedContents: string;
    private watcher?: Fs.FSWatcher;
    private pendingReload?: NodeJS.Timeout;
    private readonly checks: ((value: T) => void)[] = [];

    /** Loads the files with `read`, which throws a PolicyError, so start-up fails with what is wrong. */
    protected constructor(readonly dir: string, private readonly fileNames: readonly string[], private readonly read: () => T, private readonly log: WatchedFilesLog) {

        super();
        // Each part that follows reloads listens once (cron jobs, each route's stream hub while it has streams, the gateway…),
        // more than Node's default of 10 warns about; a listener per request or stream would still go past this.
        this.setMaxListeners(30);
        this.loadedContents = this.contents();
        this.value = read();
    }

    current(): T {

        return this.value;
    }

    /**
     * Has every reload also pass `check`, which throws to refuse the new value: what others
     * built on the value in force must still hold under the new one (the routes' scopes).
     */
    addCheck(check: (value: T) => void): void {

        this.checks.push(check);
    }

    /** Loads the files again; returns false, logging why, when they are invalid. */
    reload(): boolean {

        return this.load(this.contents());
    }

    /** reload(), the files' digest `contents` already taken. */
    private load(contents: string): boolean {

        this.loadedContents = contents;
        try {
            const value = this.read();
            this.checks.forEach((check) => check(value));
            // One assignment: a request sees either the old value or the new, never a mix.
            this.value = value;
        }
        catch (error) {
            this.log.log([...this.log.tags, 'error'], `${this.log.refused}:\n${(error as Error).message}`);
            return false;
        }

        this.log.log([...this.log.tags, 'info'], this.log.reloaded);
        this.emit('reloaded', this.value);
        return true;
    }

    /** Reloads when one of the files changes on disk, and on SIGHUP. */
    watch(): void {

        if (this.watcher) {
            return;
        }

        // The directory, not the files: an editor that saves by renaming a new file over the
        // old one would leave a file watcher on the replaced file.
        this.watcher = Fs.watch(this.dir, (event, filename) => {

            if (filename === null || this.fileNames.includes(filename)) {
                this.scheduleReload();
            }
        });

        this.watcher.on('error', (error) => this.log.log([...this.log.tags, 'error'], `watching ${this.dir} failed, edits need a SIGHUP: ${error.message}`));
        // The server keeps the process alive; a store left watching should not.
        this.watcher.unref();

        // A directory watch stays on the directory it found, so it misses a directory that is a symlink
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

        return this.fileNames.map((name) => Path.join(this.dir, name));
    }

    /** A digest of every file's text, a missing file included. */
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
        return undefined;           // reading it says what is wrong with it
    }
}
