'use strict';

const HapiPlugin = require('@hapi/eslint-plugin');


/*
 * hapi's scope-start (a blank line after a function's opening brace), for functions with a
 * brace: an arrow whose body is an expression has no scope to open, however many lines it
 * takes. Adds the fix: the blank line.
 */

const scopeStart = HapiPlugin.rules['scope-start'];


module.exports = {
    meta: { ...scopeStart.meta, fixable: 'whitespace' },
    create(context) {

        const reporting = Object.create(context, {
            report: {
                value: (descriptor) => {

                    const openingBrace = context.sourceCode.getFirstToken(descriptor.node.body);
                    context.report({ ...descriptor, fix: (fixer) => fixer.insertTextAfter(openingBrace, '\n') });
                }
            }
        });

        const listeners = scopeStart.create(reporting);
        return {
            ...listeners,
            ArrowFunctionExpression: (node) => {

                if (node.body.type === 'BlockStatement') {
                    listeners.ArrowFunctionExpression(node);
                }
            }
        };
    }
};
