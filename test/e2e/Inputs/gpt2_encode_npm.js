// gpt2_encode_npm.js - GPT-2 token ids from the reference npm encoder.
//
// Usage: node gpt2_encode_npm.js NPM_PREFIX [--lines] < text
// Loads gpt-3-encoder from NPM_PREFIX/node_modules (installed there with
// `npm install --prefix NPM_PREFIX gpt-3-encoder@1.1.4`) and prints the ids
// of stdin in tfm-tokenize's format: space-separated on one line, or with
// --lines one output line per '\n'-separated input line.
'use strict';
const fs = require('fs');
const path = require('path');

const prefix = process.argv[2];
if (!prefix) {
  process.stderr.write('usage: node gpt2_encode_npm.js NPM_PREFIX [--lines] < text\n');
  process.exit(2);
}
const encoder = require(path.join(path.resolve(prefix), 'node_modules', 'gpt-3-encoder'));
const text = fs.readFileSync(0, 'utf8');
// An id the encoder could not map prints as "undefined" and fails the diff.
const format = ids => ids.map(String).join(' ') + '\n';
const chunks = process.argv.includes('--lines') ? text.split('\n') : [text];
process.stdout.write(chunks.map(chunk => format(encoder.encode(chunk))).join(''));
