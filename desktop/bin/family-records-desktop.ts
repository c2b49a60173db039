#!/usr/bin/env node
/* `family-records-desktop`: the command line, or with no command the desktop window. */
process.stdout.write('family-records-desktop\n');
