// Bundles the daemon into one ES module, so `recap daemon` starts without resolving and
// compiling a few hundred small modules (recap's own and zod's). Packages that are native,
// large or load data lazily stay outside and are imported as usual. bin/recap.js loads
// this file for `recap daemon`, and dist/daemon/daemon.js when it is missing or older than
// the files it was made from.
import { writeFileSync } from 'node:fs';
import { build } from 'esbuild';

// OpenTelemetry's SDK is imported only when telemetry is on (daemon/telemetry/index.ts);
// secretlint's rules on the first text stored (daemon/secretScanner.ts).
const EXTERNAL = ['@secretlint/*', 'level', 'classic-level', 'msgpackr', 'pino', 'gpt-tokenizer', 'gpt-tokenizer/*', '@opentelemetry/*'];

const result = await build({
  stdin: {
    contents: "export { runDaemon, DaemonStartError } from './dist/daemon/daemon.js';\nexport { UserError } from './dist/common/errors.js';\n",
    resolveDir: '.',
    sourcefile: 'daemon-entry.js',
  },
  outfile: 'dist/daemon/daemon.bundle.js',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  external: EXTERNAL,
  metafile: true,
  logLevel: 'warning',
});

// The bundle sits next to daemon.js, so import.meta.url-relative paths (common/bins.ts:
// ../../bin/...) resolve as they do from any module one folder under dist.
const inputs = Object.keys(result.metafile.inputs).filter((input) => input !== 'daemon-entry.js');
const outside = inputs.filter((input) => !/^(dist|node_modules)\//.test(input));
if (outside.length > 0) {
  console.error(`the daemon bundle took files from outside dist/ and node_modules/:\n${outside.join('\n')}`);
  process.exit(1);
}
// recap's own files in the bundle: bin/recap.js uses the bundle only while none of them is
// newer than it (after a bare `tsc`, the daemon runs from dist/ as compiled, never stale).
writeFileSync('dist/daemon/daemon.bundle.inputs.json', `${JSON.stringify(inputs.filter((input) => input.startsWith('dist/')))}\n`);
