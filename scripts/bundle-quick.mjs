// Bundles the plain forms of `recap status`, `context`, `chain`, `replay --at` and `verify` (src/client/quick.ts) into
// one ES module, dist/client/quick.bundle.js, which bin/recap.js runs for those forms: one
// file read and compiled instead of some fifty small modules resolved, linked and compiled
// one by one. Only recap's own files and Node built-ins may get in (no yargs, no zod). As for
// the daemon's bundle, bin/recap.js uses it only while none of the files it was made from is
// newer.
import { writeFileSync } from 'node:fs';
import { build } from 'esbuild';

const OUT = 'dist/client/quick.bundle.js';

const result = await build({
  entryPoints: ['dist/client/quick.js'],
  outfile: OUT,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  metafile: true,
  logLevel: 'warning',
});
// It sits next to quick.js, so paths relative to import.meta.url (common/bins.ts:
// ../../bin/...) resolve as they do from dist/.

const inputs = Object.keys(result.metafile.inputs);
const foreign = inputs.filter((input) => !input.startsWith('dist/'));
if (foreign.length > 0) {
  console.error(`the quick CLI bundle must load nothing but Node built-ins and recap's own code; it would load:\n${foreign.join('\n')}`);
  process.exit(1);
}
writeFileSync('dist/client/quick.bundle.inputs.json', `${JSON.stringify(inputs)}\n`);
