import * as initial from './0001-initial';

/** Every migration, in order. Registered explicitly: no file-name magic. */
export const migrations = [
    { name: '0001-initial', ...initial }
];
