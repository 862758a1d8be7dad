// npm_reference.js - Loads a reference package installed by the set-up step.
//
// The tests compare tfmc against npm packages that tools/install-deps.sh
// installs (tools/npm/package.json); a test never installs or fetches one.
// When a package is missing, the test fails with the command that fixes it.
'use strict';
const fs = require('fs');
const path = require('path');

function packageDir(modulesDir, name) {
  const dir = path.join(path.resolve(modulesDir), name);
  if (!fs.existsSync(path.join(dir, 'package.json'))) {
    process.stderr.write(
        `error: the npm reference package '${name}' is not installed in ` +
        `${modulesDir}; run tools/install-deps.sh (the set-up step of both ` +
        `README commands), or point TFMC_NPM_DIR at its install\n`);
    process.exit(1);
  }
  return dir;
}

module.exports = {packageDir};
