/** What an export for a key that sees living persons redacted says of itself, under its title (HTML, PDF) or in its header (GEDCOM). */
export const withheldNote = 'Details of living persons are withheld.';
