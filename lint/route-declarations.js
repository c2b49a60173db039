'use strict';

/*
 * A route reads like a declaration: a route object (one with `method`, `path` and a `handler`
 * or `options`), or its `options` object, written on one line longer than `maxLength` characters
 * puts each property on a line of its own. max-len skips lines with strings, which route lines
 * always have. The fix breaks such an object over lines, one property a line; a nested `options`
 * object is broken on the next pass, at its new indentation.
 */

const internals = {};


internals.keyName = function (property) {

    if (property.type !== 'Property' || property.computed) {
        return undefined;
    }

    return property.key.type === 'Identifier' ? property.key.name : property.key.value;
};


internals.isRoute = function (node) {

    const keys = new Set(node.properties.map(internals.keyName));
    return keys.has('method') && keys.has('path') && (keys.has('handler') || keys.has('options'));
};


module.exports = {
    meta: {
        type: 'layout',
        fixable: 'whitespace',
        docs: {
            description: 'put each property of a route and of its options on a line of its own'
        },
        schema: [{
            type: 'object',
            properties: {
                maxLength: { type: 'integer', minimum: 1 }
            },
            additionalProperties: false
        }],
        messages: {
            oneLiner: 'Route {{what}} of {{length}} characters on one line: put each property on a line of its own.'
        }
    },
    create(context) {

        const sourceCode = context.sourceCode;
        const maxLength = context.options[0]?.maxLength ?? 100;

        const check = function (node, what) {

            const length = node.range[1] - node.range[0];
            if (node.loc.start.line !== node.loc.end.line ||
                node.properties.length < 2 ||
                length <= maxLength) {

                return;
            }

            context.report({
                node,
                messageId: 'oneLiner',
                data: { what, length },
                // A comment among the properties would be lost: such an object is left to a hand.
                fix: sourceCode.getCommentsInside(node).length > 0 ? undefined : (fixer) => {

                    const indent = sourceCode.lines[node.loc.start.line - 1].match(/^\s*/)[0];
                    const properties = node.properties.map((property) => `${indent}    ${sourceCode.getText(property)}`);
                    return fixer.replaceText(node, `{\n${properties.join(',\n')}\n${indent}}`);
                }
            });
        };

        return {
            ObjectExpression: (node) => {

                if (!internals.isRoute(node)) {
                    return;
                }

                check(node, 'object');
                const options = node.properties.find((property) => internals.keyName(property) === 'options');
                if (options?.value.type === 'ObjectExpression') {
                    check(options.value, 'options');
                }
            }
        };
    }
};
