#!/usr/bin/env node
'use strict';

// The command's entry: a file that exists before the build, so that npm links it at install time.
require('./dist/bin/family-records-desktop.js');
