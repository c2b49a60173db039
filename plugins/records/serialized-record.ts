/** A record as the JSON API shows it. */
export type SerializedRecord = Record<string, unknown> & { id: string };
/** A record's columns as plain values (a model instance's plain copy, or a listed record's columns). */
export type RecordRow = Readonly<Record<string, unknown>>;
