import { EventEmitter } from 'events';
import Fs from 'fs';
import Path from 'path';

import type { AuthEpoch } from './auth-epoch';

const MOVED = 'moved';

// How often a subscribed epoch also looks at the marker file, watched or not: well within the second a revocation may
// take, and a watch that failed later (its 'error' event) leaves subscribers no worse off.
const MARKER_POLL_MS = 250;

/*
 * Only Linux's inotify is trusted to keep the promise of "the very next request": the kernel queues
 * the event when the file is replaced, before any later request's bytes can arrive, and libuv
 * hands ready descriptors to the event loop in the order they became ready, so the watch has run
 * before the request is read. Other platforms' watches (FSEvents) deliver late and coalesce.
 */
const watchIsPrompt = process.platform === 'linux';

/**
 * The marker file of one data directory, shared by every LocalAuthEpoch of this process that
 * names it: a bump by one (two instances in one process, as the tests run them) is seen by the
 * others at once. Its version is kept from a watch of its directory, so a request costs no
 * system call; where no prompt watch can be had, every read looks at the file (a stat).
 */
class MarkerFile extends EventEmitter {
    private version = '';
    private bumps = 0;
    private watcher?: Fs.FSWatcher;
    private users = 0;

    constructor(readonly path: string, private readonly watch: boolean) {

        super();
        Fs.mkdirSync(Path.dirname(path), { recursive: true });
    }

    /** The version as of now: a change by any process on this machine is in it. */
    current(): string {

        return this.watcher ? this.version : this.refresh();
    }

    bump(): void {

        ++this.bumps;
        const temporary = `${this.path}.${process.pid}.tmp`;
        Fs.writeFileSync(temporary, `${Date.now()}\n`);
        Fs.renameSync(temporary, this.path);        // a new file, a new inode: every reader sees it move
        this.refresh();
    }

    open(): void {

        if (++this.users === 1 && this.watch) {
            try {
                // The directory, not the file: the file is replaced at every bump, and a watch of it would follow the old inode.
                this.watcher = Fs.watch(Path.dirname(this.path), { persistent: false }, () => this.refresh());
                this.watcher.on('error', () => this.stopWatching());
            }
            catch {
                this.watcher = undefined;           // e.g. out of inotify watches: every read stats the file instead
            }
        }

        this.refresh();                             // after the watch began, so no change falls between the two
    }

    close(): void {

        if (--this.users === 0) {
            this.stopWatching();
            markers.delete(this.path);
        }
    }

    /** Reads the file's identity; tells the listeners when it moved. */
    refresh(): string {

        const stat = Fs.statSync(this.path, { throwIfNoEntry: false });
        const version = `${this.bumps}:${stat?.ino ?? 0}:${stat?.mtimeMs ?? 0}`;
        if (version !== this.version) {
            this.version = version;
            this.emit(MOVED);
        }

        return version;
    }

    private stopWatching(): void {

        this.watcher?.close();
        this.watcher = undefined;
    }
}

const markers = new Map<string, MarkerFile>();

function markerFile(path: string, watch: boolean): MarkerFile {

    const resolved = Path.resolve(path);
    let marker = markers.get(resolved);
    if (!marker) {
        marker = new MarkerFile(resolved, watch);
        markers.set(resolved, marker);
    }

    marker.open();
    return marker;
}

/**
 * One machine, no Redis (the embedded default): the epoch is the identity of a marker file that
 * every bump replaces, so a change made by another process on this machine (the operator CLI,
 * another instance sharing the data directory) counts on the very next request. The file lives
 * in a directory of its own, so the watch hears of nothing else (the database beside it writes
 * all the time). Remembering the file's state for even a few milliseconds, instead of watching
 * it, let a request through after a revocation.
 */
export class LocalAuthEpoch implements AuthEpoch {
    private readonly marker: MarkerFile;
    private readonly listeners = new Set<() => void>();
    private poll?: NodeJS.Timeout;
    private closed = false;

    /** @param watch whether to watch the marker; without, every read stats it (the tests' way to run the fallback on Linux). */
    constructor(markerPath: string, { watch = watchIsPrompt }: { watch?: boolean } = {}) {

        this.marker = markerFile(markerPath, watch);
    }

    current(): string {

        return this.marker.current();
    }

    bump(): Promise<void> {

        this.marker.bump();
        return Promise.resolve();
    }

    subscribe(listener: () => void): Promise<() => void> {

        this.listeners.add(listener);
        this.marker.on(MOVED, listener);
        if (!this.poll) {
            this.poll = setInterval(() => this.marker.refresh(), MARKER_POLL_MS);
            this.poll.unref();
        }

        return Promise.resolve(() => this.unsubscribe(listener));
    }

    /** The poll stands in for a watch that fails. */
    listening(): boolean {

        return true;
    }

    close(): Promise<void> {

        for (const listener of this.listeners) {
            this.unsubscribe(listener);
        }

        if (!this.closed) {
            this.closed = true;
            this.marker.close();
        }

        return Promise.resolve();
    }

    private unsubscribe(listener: () => void): void {

        this.listeners.delete(listener);
        this.marker.off(MOVED, listener);
        if (this.listeners.size === 0) {
            clearInterval(this.poll);
            this.poll = undefined;
        }
    }
}
