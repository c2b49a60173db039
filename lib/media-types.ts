import { isUtf8 } from 'buffer';

/** Bytes a file of a media type has at `offset`; null matches any byte (`??` in policies/files.yaml). */
export interface FileSignature {
    offset: number;
    bytes: (number | null)[];
}

/** How to recognise one media type: by signatures, or (plain text, which has none) as UTF-8 text. */
export interface MediaTypePolicy {
    name: string;
    /** Its file name extensions (`.jpg`), lower case, the usual one first: what an uploaded file's name must end with. */
    extensions: string[];
    signatures?: FileSignature[];
    utf8_text?: true;
}

/** The signature table of policies/files.yaml, in detection order: what every upload (gallery, documents, message attachments) is recognised by. */
export interface MediaTypeTable {
    media_types: readonly MediaTypePolicy[];
}

function matches(data: Buffer, signature: FileSignature): boolean {

    return signature.offset + signature.bytes.length <= data.length &&
        signature.bytes.every((byte, index) => byte === null || data[signature.offset + index] === byte);
}

// Tab, line feed, form feed and carriage return are text; other C0 controls and DEL are not.
// UTF-8 never uses bytes below 0x80 inside a multi-byte character, so a byte scan is exact.
const isControlByte = (byte: number) => (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0c && byte !== 0x0d) || byte === 0x7f;

const isPlainText = (data: Buffer) => isUtf8(data) && data.findIndex(isControlByte) === -1;

/** What the content is: the first media type of the table whose signature matches, then UTF-8 text; undefined when none. */
export function detectMediaType(table: MediaTypeTable, data: Buffer): string | undefined {

    const bySignature = table.media_types.find((type) => type.signatures?.some((signature) => matches(data, signature)));
    return (bySignature ?? table.media_types.find((type) => type.utf8_text && isPlainText(data)))?.name;
}
