// hf_tokenize_npm.mjs - Token ids and text from @huggingface/tokenizers.
//
// Usage: node hf_tokenize_npm.mjs NODE_MODULES TOKENIZER_JSON
//            [--config TOKENIZER_CONFIG_JSON] [--add-special] [--decode]
//            [--lines] < text-or-ids
// Loads @huggingface/tokenizers (installed into NODE_MODULES by
// tools/install-deps.sh) and prints what tfm-tokenize --hf prints:
// encode(text, {add_special_tokens}).ids space-separated, or with --decode
// decode(ids, {skip_special_tokens: true}) followed by '\n'; with --lines
// one result per '\n'-separated input line.
import fs from 'fs';
import path from 'path';
import {createRequire} from 'module';
import {pathToFileURL} from 'url';

const require = createRequire(import.meta.url);
const {packageDir} = require('./npm_reference.js');

const args = process.argv.slice(2);
const [modules, tokenizerPath] = args;
if (!modules || !tokenizerPath) {
  process.stderr.write('usage: node hf_tokenize_npm.mjs NODE_MODULES ' +
                       'TOKENIZER_JSON [--config FILE] [--add-special] ' +
                       '[--decode] [--lines] < input\n');
  process.exit(2);
}
const dir = packageDir(modules, '@huggingface/tokenizers');
const {Tokenizer} = await import(
    pathToFileURL(path.join(dir, 'dist', 'tokenizers.mjs')).href);

const readJson = file => JSON.parse(fs.readFileSync(file, 'utf8'));
const configAt = args.indexOf('--config');
const config = configAt >= 0 ? readJson(args[configAt + 1]) : {};
const tokenizer = new Tokenizer(readJson(tokenizerPath), config);
const addSpecial = args.includes('--add-special');
const decode = args.includes('--decode');

const input = fs.readFileSync(0, 'utf8');
const process1 = chunk => {
  if (!decode) {
    const {ids} = tokenizer.encode(chunk, {add_special_tokens: addSpecial});
    return ids.map(String).join(' ') + '\n';
  }
  const ids = chunk.split(' ').filter(s => s.length > 0).map(Number);
  // decode() rejects an empty list; its text is empty.
  const text = ids.length ? tokenizer.decode(ids, {skip_special_tokens: true})
                          : '';
  return text + '\n';
};
let chunks;
if (args.includes('--lines'))
  chunks = input.split('\n');
else
  chunks = [decode ? input.replace(/\n$/, '') : input];
process.stdout.write(chunks.map(process1).join(''));
