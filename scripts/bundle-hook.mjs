// Bundles the hook client into one CommonJS file. Node starts a CommonJS file with no
// imports markedly faster than an ES module graph, and the hook runs on every tool call.
// The build fails if anything but recap's own client code and Node built-ins gets in.
import { build } from 'esbuild';

const result = await build({
  entryPoints: ['dist/client/hook.js'],
  outfile: 'dist/client/hook.cjs',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  metafile: true,
  logLevel: 'warning',
  define: { 'import.meta.url': '__recapModuleUrl' },
  banner: { js: "const __recapModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
});

const foreign = Object.keys(result.metafile.inputs).filter((input) => !/^dist\/(client|common)\//.test(input));
if (foreign.length > 0) {
  console.error(`recap-hook must load nothing but Node built-ins and recap's client code; it would load:\n${foreign.join('\n')}`);
  process.exit(1);
}
