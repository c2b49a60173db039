import { openRecord, sealRecord } from './cipher';

/** JSON records sealed with the store's key, each bound to its table and id. */
export class SealedRecords {

    constructor(private readonly key: Buffer) { }

    seal(table: string, id: string, value: unknown): Buffer {

        return sealRecord(this.key, `${table}:${id}`, JSON.stringify(value));
    }

    open<T>(table: string, id: string, sealed: Buffer): T {

        return JSON.parse(openRecord(this.key, `${table}:${id}`, sealed).toString('utf8'));
    }

    sealBytes(table: string, id: string, bytes: Buffer): Buffer {

        return sealRecord(this.key, `${table}:${id}`, bytes);
    }

    openBytes(table: string, id: string, sealed: Buffer): Buffer {

        return openRecord(this.key, `${table}:${id}`, sealed);
    }
}
