import Fs from 'fs';
import Path from 'path';
import Joi from 'joi';
import YAML, { LineCounter } from 'yaml';

/** One thing wrong with a data file. */
export interface PolicyProblem {
    file: string;
    /** Path inside the document (`plans[1].rate_limit`), `line 3, column 5` for YAML syntax, or empty for the whole file. */
    location: string;
    problem: string;
}

/** A data file that cannot be used. The message lists every problem, one a line, as `file: location: problem`. */
export class PolicyError extends Error {

    override readonly name = 'PolicyError';

    constructor(readonly problems: readonly PolicyProblem[]) {

        super(problems.map(({ file, location, problem }) => [file, location, problem].filter(Boolean).join(': ')).join('\n'));
    }
}

const FORMAT_VERSION = '1.0';

// Kong's envelope: every file says which version of its shape it is written in. Checked here, then dropped.
const envelope = Joi.object({
    _format_version: Joi.valid(FORMAT_VERSION).required().strip()
        .messages({ 'any.only': `must be "${FORMAT_VERSION}" (a quoted string), not {#value}` })
});

// `${NAME}` or `${NAME:-default}`, as in a shell and in Kong's declarative config.
const ENVIRONMENT_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

type DocumentPath = (string | number)[];

/**
 * Reads a YAML data file: substitutes environment variables in its string values, then validates
 * it with `schema` (`context` carries what the schema refers to in other files, as `$name`).
 * Returns the validated value with defaults filled in and strings converted ("600" to 600);
 * throws a PolicyError naming every problem.
 */
export function readDataFile<T>(file: string, schema: Joi.ObjectSchema, context: Joi.Context = {}): T {

    const shownAs = displayName(file);
    const document = parseYaml(shownAs, readText(file, shownAs));
    return validateDocument<T>(shownAs, substituteEnvironment(shownAs, document), envelope.concat(schema), context);
}

// As an operator would type it from the working directory; absolute when the file lies outside it.
export function displayName(file: string): string {

    const relative = Path.relative(process.cwd(), file);
    return relative.split(Path.sep)[0] === '..' || Path.isAbsolute(relative) ? Path.resolve(file) : relative;
}

function readText(file: string, shownAs: string): string {

    try {
        return Fs.readFileSync(file, 'utf8');
    }
    catch (error) {
        const problem = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : `cannot read the file: ${(error as Error).message}`;
        throw new PolicyError([{ file: shownAs, location: '', problem }]);
    }
}

function parseYaml(shownAs: string, text: string): unknown {

    const lineCounter = new LineCounter();
    const document = YAML.parseDocument(text, { lineCounter, prettyErrors: false });
    // Only the first syntax error: the parser's later ones mostly follow from it.
    const [syntaxError] = document.errors;
    if (syntaxError) {
        const { line, col } = lineCounter.linePos(syntaxError.pos[0]);
        throw new PolicyError([{ file: shownAs, location: `line ${line}, column ${col}`, problem: syntaxError.message }]);
    }

    // An empty file (or one of comments only) is most often one an editor is still saving, or one truncated by mistake.
    if (document.contents === null) {
        throw new PolicyError([{ file: shownAs, location: '', problem: `the file is empty (a policy file starts with _format_version: "${FORMAT_VERSION}")` }]);
    }

    try {
        return document.toJS();
    }
    catch (error) {
        // Well-formed but unusable, e.g. an alias to an anchor that does not exist.
        throw new PolicyError([{ file: shownAs, location: '', problem: (error as Error).message }]);
    }
}

function substituteEnvironment(shownAs: string, document: unknown): unknown {

    const problems: PolicyProblem[] = [];

    const substitute = (value: unknown, path: DocumentPath): unknown => {

        if (typeof value === 'string') {
            return value.replace(ENVIRONMENT_REFERENCE, (reference, name: string, fallback: string | undefined) => {

                const set = process.env[name];
                // As in a shell, `:-` also replaces a variable that is set but empty.
                if (fallback !== undefined && !set) {
                    return fallback;
                }

                if (set === undefined) {
                    problems.push({ file: shownAs, location: formatPath(path), problem: `environment variable ${name} is not set (write \${${name}:-default} to give a default)` });
                    return reference;
                }

                return set;
            });
        }

        if (Array.isArray(value)) {
            return value.map((item, index) => substitute(item, [...path, index]));
        }

        if (value !== null && typeof value === 'object') {
            return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substitute(item, [...path, key])]));
        }

        return value;
    };

    const substituted = substitute(document, []);
    if (problems.length > 0) {
        throw new PolicyError(problems);
    }

    return substituted;
}

/** Validates a document read from `shownAs`; throws a PolicyError naming every problem. */
export function validateDocument<T>(shownAs: string, value: unknown, schema: Joi.ObjectSchema, context: Joi.Context): T {

    const { value: validated, error } = schema.validate(value, { abortEarly: false, convert: true, errors: { label: false }, context });
    if (!error) {
        return validated as T;
    }

    // joi may report one value twice (not in the list, and not a string either): the first says enough.
    const problemAt = new Map<string, string>();
    for (const detail of error.details) {
        const location = formatPath(detail.path);
        if (!problemAt.has(location)) {
            problemAt.set(location, detail.message);
        }
    }

    throw new PolicyError([...problemAt].map(([location, problem]) => ({ file: shownAs, location, problem })));
}

/** `plans[1].rate_limit`, the way a reader finds it in the file. */
function formatPath(path: DocumentPath): string {

    return path.map((segment, index) => (typeof segment === 'number' ? `[${segment}]` : index === 0 ? segment : `.${segment}`)).join('');
}
