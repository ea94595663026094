// Runs recap on the fake macOS platform (src/platform/fakeMacos.ts): `node onFakeMacos.mjs ARGS`
// is `recap ARGS`, `node onFakeMacos.mjs --hook AGENT` is `recap-hook AGENT`. The platform is
// put in place before any of recap's code loads, as only code in recap's own process can;
// what it shows the user out of band is appended to the file FAKE_MACOS_NOTICES names.
import { createRequire } from 'node:module';
import { fakeMacos } from '../../dist/platform/fakeMacos.js';

globalThis[Symbol.for('recap.platform')] = fakeMacos({ notices: process.env.FAKE_MACOS_NOTICES });

if (process.argv[2] === '--hook') {
  process.argv.splice(2, 1);
  createRequire(import.meta.url)('../../bin/recap-hook.cjs');
} else await import('../../bin/recap.js');
