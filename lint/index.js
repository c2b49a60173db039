'use strict';

const BlockScopeStart = require('./block-scope-start');
const RouteDeclarations = require('./route-declarations');


// This project's own rules, as an ESLint plugin (eslint.config.js).
module.exports = {
    rules: {
        'block-scope-start': BlockScopeStart,
        'route-declarations': RouteDeclarations
    }
};
