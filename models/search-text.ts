/*
 * Free-text search ignores case and accents, alike on SQLite and PostgreSQL: every resource table
 * keeps its searchable fields folded in one column, `search_text`, that the models write
 * (resource-record.ts), and a list looks for each search word folded the same way
 * (plugins/records/list-sql.ts), as plain text: no database folds anything. SQLite's lower() and
 * LIKE fold A–Z only; folding here is the same on both, whatever their versions and collations.
 */

/** The column, in the models and the database only: never in the API, documentation or exports. */
export const searchTextColumn = 'search_text';

/** Between two fields: search words are split on whitespace, so no word can match across two fields. */
const fieldSeparator = '\n';

/*
 * The accents of Latin, Greek and Cyrillic letters, as NFKD writes them apart: the combining
 * diacritical mark blocks, not every mark (\p{M}). Elsewhere a mark is part of the word: a
 * Devanagari vowel sign (हिन्दी is not हनद), the voicing of kana (が is not か).
 */
const accents = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/gu;

/*
 * Lower-case letters that NFKD leaves whole, yet that search must treat as their plain letter:
 * - case: `ß` is `SS` in capitals (STRAUSS is Strauß); dotless `ı` is the Turkish small `I` (ISIK is
 *   Işık); and lower-casing turns a capital sigma that ends a word into `ς`, so `ΟΔΥΣ`, the start of
 *   `ΟΔΥΣΣΕΥΣ`, would end in `ς` where the name has `σ`;
 * - accents: a stroke or bar is part of the letter in Unicode (Østergaard, Łódź, Đorđević, Ħamrun).
 */
const plainLetters: Readonly<Record<string, string>> = { ß: 'ss', ı: 'i', ς: 'σ', ø: 'o', ł: 'l', đ: 'd', ħ: 'h', ŧ: 't' };
const lettersToPlain = new RegExp(`[${Object.keys(plainLetters).join('')}]`, 'g');

/**
 * Text as search compares it: compatibility decomposition (NFKD: `É` is `E` and a combining acute,
 * `ﬁ` is `fi`), without the accents, lower-cased, with the letters above made plain. Both
 * what is searched and what is looked for are folded, so `emile` and `ÉMILE` find Émile.
 */
export const foldForSearch = (text: string): string => {

    return text.normalize('NFKD').replace(accents, '').toLowerCase().replace(lettersToPlain, (letter) => plainLetters[letter]);
};

/** The `search_text` of a record: the values of `fieldNames`, each folded, one a line; an empty value is an empty line. */
export const searchText = (values: Readonly<Record<string, unknown>>, fieldNames: readonly string[]): string => {

    return fieldNames.map((name) => foldForSearch(String(values[name] ?? ''))).join(fieldSeparator);
};
