// gpt2_encode_npm.js - GPT-2 token ids from the reference npm encoder.
//
// Usage: node gpt2_encode_npm.js NODE_MODULES [--lines] < text
// Loads gpt-3-encoder 1.1.4 from NODE_MODULES (installed there by
// tools/install-deps.sh) and prints the ids of stdin in tfm-tokenize's
// format: space-separated on one line, or with --lines one output line per
// '\n'-separated input line.
'use strict';
const fs = require('fs');
const {packageDir} = require('./npm_reference.js');

const modules = process.argv[2];
if (!modules) {
  process.stderr.write('usage: node gpt2_encode_npm.js NODE_MODULES [--lines] < text\n');
  process.exit(2);
}
const encoder = require(packageDir(modules, 'gpt-3-encoder'));
const text = fs.readFileSync(0, 'utf8');
// An id the encoder could not map prints as "undefined" and fails the diff.
const format = ids => ids.map(String).join(' ') + '\n';
const chunks = process.argv.includes('--lines') ? text.split('\n') : [text];
process.stdout.write(chunks.map(chunk => format(encoder.encode(chunk))).join(''));
