// Installs test/agents, the real Codex, Gemini CLI, Qwen Code, opencode and Copilot CLIs the end-to-end tests
// run offline, from its own lock, so the root `npm install` never downloads them. It installs
// only when test/agents/node_modules is missing or was installed from another lock (a stamp
// holds the lock's hash), afresh, with --ignore-scripts: the CLIs need no install script (see
// test/agents/README.md). Not `npm ci`: it refuses this lock, which cannot list optional
// packages that were never published (Qwen Code's @teddyzhu/clipboard names five, 404 on the
// registry); `npm install` takes the locked versions all the same, and the script fails if it
// would change the lock. Prints one line of what it did.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const DIR = resolve(import.meta.dirname, '..', 'test', 'agents');
const LOCK = join(DIR, 'package-lock.json');
const STAMP = join(DIR, 'node_modules', '.recap-lock-sha256');
const ENTRIES = [
  '@openai/codex/bin/codex.js',
  '@google/gemini-cli/bundle/gemini.js',
  '@qwen-code/qwen-code/cli-entry.js',
  'opencode-linux-x64/bin/opencode',
  '@github/copilot/npm-loader.js',
  '@github/copilot-linux-x64/package.json',
];

function fail(message) {
  console.error(`install-test-agents: ${message}`);
  process.exit(1);
}

if (!existsSync(LOCK)) fail(`${LOCK} is missing; it is committed with test/agents/package.json`);
const lockHash = () => createHash('sha256').update(readFileSync(LOCK)).digest('hex');
const hash = lockHash();
const installed = ENTRIES.every((entry) => existsSync(join(DIR, 'node_modules', entry)));
if (installed && existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === hash) {
  console.log('install-test-agents: test/agents/node_modules is up to date with its lock');
  process.exit(0);
}

const started = Date.now();
// Under `npm test`, npm_execpath is the npm that runs us; elsewhere, the npm on the PATH.
const [command, ...prefix] = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
const args = [...prefix, 'install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'];
rmSync(join(DIR, 'node_modules'), { recursive: true, force: true });
const npm = spawnSync(command, args, { cwd: DIR, stdio: ['ignore', 'ignore', 'inherit'] });
if (npm.error || npm.status !== 0) {
  fail(
    `\`npm install\` in test/agents failed (${npm.error?.message ?? `exit ${npm.status}`}); the agent end-to-end tests need it. ` +
      'It needs the npm registry; to retry by hand: cd test/agents && npm install --ignore-scripts',
  );
}
const missing = ENTRIES.filter((entry) => !existsSync(join(DIR, 'node_modules', entry)));
if (missing.length > 0) fail(`\`npm install\` in test/agents left out ${missing.join(', ')}`);
if (lockHash() !== hash) fail('`npm install` changed test/agents/package-lock.json: the lock no longer matches package.json; review and commit it');
writeFileSync(STAMP, `${hash}\n`);
console.log(`install-test-agents: installed test/agents from its lock in ${((Date.now() - started) / 1000).toFixed(1)} s`);
