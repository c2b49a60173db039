'use strict';

const { defineConfig, globalIgnores } = require('eslint/config');
const Globals = require('globals');
const HapiPlugin = require('@hapi/eslint-plugin');
const TsEslint = require('typescript-eslint');

const LocalPlugin = require('./lint');


const internals = {
    maxLength: ['error', {
        code: 180,
        ignoreUrls: true,
        ignoreStrings: true,
        ignoreTemplateLiterals: true,
        ignoreRegExpLiterals: true
    }],
    // hapi's, and a string holding single quotes (SQL, a CSP) may be written in double quotes.
    quotes: ['error', 'single', { avoidEscape: true, allowTemplateLiterals: true }]
};


module.exports = defineConfig([
    globalIgnores(['dist/', 'desktop/dist/', 'data/', 'files/', 'coverage/', 'test/artifacts/']),
    {
        files: ['**/*.js'],
        extends: [HapiPlugin.configs.recommended],
        plugins: {
            local: LocalPlugin
        },
        rules: {
            'max-len': internals.maxLength,
            'quotes': internals.quotes,
            '@hapi/scope-start': 'off',
            'local/block-scope-start': 'error'
        }
    },
    {
        files: ['plugins/site/assets/**/*.js'],
        languageOptions: {
            globals: Globals.browser
        },
        rules: {
            // A page script, not a module: no directive that would change how browsers run it.
            'strict': 'off'
        }
    },
    {
        files: ['desktop/src/window/assets/**/*.js'],
        languageOptions: {
            globals: Globals.browser,
            ecmaVersion: 2022,
            sourceType: 'module'
        },
        rules: {
            // Page modules, strict already; named functions declared, as in the TypeScript.
            'strict': 'off',
            'func-style': ['error', 'declaration', { allowArrowFunctions: true }]
        }
    },
    {
        files: ['**/*.ts'],
        extends: [HapiPlugin.configs.recommended, TsEslint.configs.recommended],
        plugins: {
            local: LocalPlugin
        },
        languageOptions: {
            ecmaVersion: 2022,
            sourceType: 'module'
        },
        rules: {
            'max-len': internals.maxLength,
            'quotes': internals.quotes,
            'local/route-declarations': ['error', { maxLength: 100 }],

            // Named functions are declared as functions; callbacks and small helpers are arrows.
            'func-style': ['error', 'declaration', { allowArrowFunctions: true }],

            // hapi's rule for functions with a brace; an arrow with an expression body opens no scope.
            '@hapi/scope-start': 'off',
            'local/block-scope-start': 'error',

            // Loop variables are named for what they count (`round`, `attempt`), not `i`, `j`, `k`.
            '@hapi/for-loop': 'off',

            // An async function without await is deliberate: it implements a Promise-returning interface and turns a throw into a rejection.
            'require-await': 'off',

            // Takes a function type among type arguments (`Map<string, (page: string) => string>`) for a call, and its fix breaks the line.
            'no-spaced-func': 'off',

            // The TypeScript versions of hapi's rules, with hapi's options: they understand types, overloads and enums.
            'no-shadow': 'off',
            '@typescript-eslint/no-shadow': ['error', { allow: ['err', 'done'] }],
            'no-loop-func': 'off',
            '@typescript-eslint/no-loop-func': 'error',
            '@typescript-eslint/no-unused-vars': ['error', {
                vars: 'all',
                caughtErrors: 'all',
                args: 'none',
                // A leading underscore names what is there to be skipped (`[_left, right]`).
                varsIgnorePattern: '^(internals$|_)',
                destructuredArrayIgnorePattern: '^_'
            }],
            // hapi's option, which typescript-eslint's recommended set replaces.
            'prefer-const': ['error', { destructuring: 'all' }],

            // An interface that only extends another is how a module augmentation adds fields to hapi's types.
            '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }]
        }
    },
    {
        files: ['test/**/*.ts', 'bench/**/*.ts'],
        rules: {
            // Tests and benchmarks read JSON answers by path: `any` is what parsed JSON is.
            '@typescript-eslint/no-explicit-any': 'off'
        }
    },
    {
        files: ['test/**/*.ts'],
        rules: {
            // A test's `before` and `after` values shadow lab's hooks, which a test body never calls.
            '@typescript-eslint/no-shadow': ['error', { allow: ['err', 'done', 'before', 'after'] }],

            // `it()` declared in a loop reads the server and family `before()` assigns once, before any test runs.
            '@typescript-eslint/no-loop-func': 'off'
        }
    }
]);
