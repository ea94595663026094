// Builds the hook client, which Claude Code runs on every tool call, as two CommonJS files:
// bin/recap-hook.cjs, the path every call takes (the executable itself, minified: no second
// file to resolve and load, less to read and parse), and dist/client/hookFallback.cjs,
// loaded only when the daemon does not answer (start it, or answer as ON_DAEMON_DOWN says).
// Node starts a small CommonJS file with no imports markedly faster than an ES module graph.
// The build fails if anything but recap's own hook-side code (src/client, src/hook, src/common and
// the pure parts named below) and Node built-ins gets in.
import { chmodSync } from 'node:fs';
import { build } from 'esbuild';

const HOOK_BIN = 'bin/recap-hook.cjs';
const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', metafile: true, logLevel: 'warning' };

const hot = await build({
  ...common,
  entryPoints: ['dist/client/hook.js'],
  outfile: HOOK_BIN,
  minify: true,
  banner: { js: '#!/usr/bin/env node\n// Built by scripts/bundle-hook.mjs from src/client/hook.ts; do not edit.' },
  // `import('./hookFallback.js')` becomes a require of the other file, made only when called.
  supported: { 'dynamic-import': false },
  plugins: [
    {
      name: 'hook-fallback',
      setup(b) {
        b.onResolve({ filter: /^\.\/hookFallback\.js$/ }, () => ({ path: '../dist/client/hookFallback.cjs', external: true }));
      },
    },
  ],
});
chmodSync(HOOK_BIN, 0o755);

const cold = await build({
  ...common,
  entryPoints: ['dist/client/hookFallback.js'],
  outfile: 'dist/client/hookFallback.cjs',
  define: { 'import.meta.url': '__recapModuleUrl' },
  banner: { js: "const __recapModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
});

const foreign = [hot, cold]
  .flatMap((result) => Object.keys(result.metafile.inputs))
  // The hook ingress (dist/hook/) is what the daemon's endpoints do with a hook call too.
  // The fallback also judges the way out and recap's protected files as the daemon does,
  // with the same pure code, and follows links where paths lead as the daemon does (linkFollower).
  // Each agent's facts (dist/agents/known.js and <agent>/facts.js) are pure and small, and
  // name recap's own MCP tools through recapTools.js. While the
  // daemon cannot start because recap's code changed, the fallback checks it as the daemon does.
  // A folder's job is named as the daemon names it (jobNames).
  .filter(
    (input) =>
      !/^dist\/(client|common|hook|platform)\/|^dist\/events\/(whitelist|shellTokens|shellCommands|shellFolders|copyLandings|removedOperands|protection|pathNames|nestedAgents|recapSignals|recapProcessPaths|runsRecap|glob|toolCall|recapTools|codeManifest|jobNames)\.js$|^dist\/agents\/(known|facts|recapPaths|kit\/files|[a-z]+\/facts)\.js$/.test(
        input,
      ),
  );
if (foreign.length > 0) {
  console.error(`recap-hook must load nothing but Node built-ins and recap's hook-side code; it would load:\n${foreign.join('\n')}`);
  process.exit(1);
}

// Node's own modules that load many more at require (node:fs/promises: readline, fs/dir, the
// watchers; crypto some sixteen), which the hook's path never needs: its file requires none
// of them at load (the fallback may, when it runs).
const HEAVY = ['node:fs/promises', 'node:crypto', 'node:child_process', 'node:readline'];
const heavy = [...new Set(hot.metafile.outputs[HOOK_BIN].imports.map((i) => i.path).filter((path) => HEAVY.includes(path)))];
if (heavy.length > 0) {
  console.error(`${HOOK_BIN} must not require ${heavy.join(', ')} at load: import what needs it from the fallback, or read it when called (fs.promises)`);
  process.exit(1);
}
