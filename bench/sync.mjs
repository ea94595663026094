#!/usr/bin/env node
// Benchmark: `recap sync` of a job with 1,000 accepted summaries between two machines (two
// daemons, each with its own data folder) through a bare repository on disk as the remote,
// so the figures are recap's and git's work, not a network's: machine A's first push (cold),
// machine B's first fetch and import of all of them (cold), then one more summary on A and
// the same again (incremental), and a sync with nothing new. Each timed from the request's
// write to its answer over the socket. SYNC is off by default, so the hook figures of the
// other benchmarks are not touched by it: a hook never waits for sync but at a session's start.
//   node bench/sync.mjs [--quick] [--json]
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchEnv, ROOT, startDaemon, stopDaemon } from './daemon.mjs';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const SUMMARIES = quick ? 100 : 1000;
const TARGETS = { coldMs: 5000, incrementalMs: 1000 };
const round = (n, d = 0) => Math.round(n * 10 ** d) / 10 ** d;

const { Client } = await import(join(ROOT, 'dist', 'client', 'socketClient.js'));
const dir = mkdtempSync(join(tmpdir(), 'recap-bench-sync-'));
const git = (cwd, ...rest) =>
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', '-c', 'init.defaultBranch=main', ...rest], { cwd, stdio: 'ignore' });
const remote = join(dir, 'remote.git');
git(dir, 'init', '--bare', '--quiet', remote);
git(dir, 'init', '--quiet', join(dir, 'seed'));
git(join(dir, 'seed'), 'commit', '--quiet', '--allow-empty', '-m', 'first');
git(join(dir, 'seed'), 'push', '--quiet', remote, 'HEAD:main');

const config = [
  'SYNC=team',
  'SYNC_PUSH=manual',
  'SYNC_START_WAIT=0',
  'TOKEN_ENCODING=words',
  'TOKEN_THRESHOLD=1000000',
  'REQUIRED_SECTIONS=("Decisions" "State")',
  'MIN_TOKENS_PER_SECTION=1',
  'SUMMARY_MIN_TOKENS=1',
  'SUMMARY_GROUNDING=off',
  'GIST=recap',
];
/** A machine: its folder, daemon and client, and a clone of the remote. */
async function machine(name) {
  const home = join(dir, name);
  mkdirSync(home);
  writeFileSync(join(home, 'config.conf'), `${config.join('\n')}\n`);
  const project = join(home, 'project');
  git(home, 'clone', '--quiet', remote, project);
  const env = benchEnv(home, { RECAP_HOST_NAME: name });
  const daemon = await startDaemon(env);
  const client = await Client.connect(env.RECAP_SOCKET);
  return { daemon, client, ask: (op, fields = {}) => client.request(op, { cwd: project, ...fields }, 600_000) };
}

// A seeded generator, so every run syncs the same summaries; each summary its own words (the validator refuses one that repeats another).
let seed = 7;
const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'pa', 'qui', 'dor', 'fen', 'gal', 'hix', 'jun', 'bel', 'cor'];
const word = () => Array.from({ length: 2 + Math.floor(random() * 3) }, () => SYLLABLES[Math.floor(random() * SYLLABLES.length)]).join('');
const sentence = (n) => Array.from({ length: n }, word).join(' ');
const text = (i) => `## Decisions\n- entry ${i}: ${sentence(12)} — ${sentence(10)}\n\n## State\n${sentence(60)}`;

async function summarize(m, i) {
  await m.ask('record', { kind: 'prompt', text: `prompt ${i}: go on with the parser` });
  const answer = await m.ask('submit', { text: text(i) });
  if (!answer.accepted) throw new Error(`summary ${i} was rejected: ${answer.problems.join('; ')}`);
}

async function timed(m, fields) {
  const started = performance.now();
  const report = await m.ask('sync', fields);
  const ms = round(performance.now() - started);
  if (report.error !== undefined) throw new Error(`sync failed: ${report.error}`);
  return { ms, report };
}

const a = await machine('a');
const b = await machine('b');
try {
  for (let i = 1; i <= SUMMARIES; i += 1) await summarize(a, i);
  const coldPush = await timed(a, { fetch: false });
  const coldFetch = await timed(b, { push: false });
  const imported = coldFetch.report.fetched?.[0]?.imported;
  if (imported !== SUMMARIES) throw new Error(`the cold fetch imported ${imported}, not ${SUMMARIES}`);
  await summarize(a, SUMMARIES + 1);
  const incrementalPush = await timed(a, { fetch: false });
  const incrementalFetch = await timed(b, { push: false });
  const unchanged = await timed(a, {});
  const result = {
    targets: TARGETS,
    summaries: SUMMARIES,
    coldPushMs: coldPush.ms,
    coldFetchMs: coldFetch.ms,
    incrementalPushMs: incrementalPush.ms,
    incrementalFetchMs: incrementalFetch.ms,
    incrementalImported: incrementalFetch.report.fetched?.[0]?.imported,
    unchangedMs: unchanged.ms,
  };
  if (args.includes('--json')) console.log(JSON.stringify(result));
  else {
    console.log(`sync of ${SUMMARIES} summaries through a bare repository on disk (targets: cold < ${TARGETS.coldMs} ms, incremental < ${TARGETS.incrementalMs} ms)`);
    console.log(`cold: push ${result.coldPushMs} ms, fetch and import ${result.coldFetchMs} ms`);
    console.log(`one more summary: push ${result.incrementalPushMs} ms, fetch and import ${result.incrementalFetchMs} ms (${result.incrementalImported} imported)`);
    console.log(`nothing new, push and fetch: ${result.unchangedMs} ms`);
  }
} finally {
  for (const m of [a, b]) {
    m.client.close();
    await stopDaemon(m.daemon);
  }
  rmSync(dir, { recursive: true, force: true });
}
