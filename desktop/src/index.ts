/* The desktop client as a library: what the command line, the window and other programs import. */
export * from './engine/desktop-client';
export * from './engine/errors';
export type { ConnectOptions } from './engine/connect';
export type { ConflictAction } from './engine/conflicts';
export type { FlushResult } from './engine/outbox-flush';
export * from './sdk/types';
export * from './sdk/errors';
export * from './sdk/idempotency-key';
export * from './sdk/discovery';
export * from './sdk/device-sign-in';
export * from './sdk/session';
export * from './sdk/messaging-client';
export * from './sdk/stream';
export * from './sdk/uploads';
