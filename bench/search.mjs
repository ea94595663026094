#!/usr/bin/env node
// Benchmark: `recap search` over a job of 10,000 accepted summaries (three sections and a
// gist each, their words drawn from a vocabulary of a few thousand), timed from the request's
// write to its answer over the socket, as a user waits for it: the first search (which builds
// the index from the log), then p50 and p95 of single-word, prefix and two-word queries. The
// index's memory, measured twice: the index alone, built in a process of its own from the
// same summaries, its heap and ArrayBuffers after a full garbage collection less before (the
// target is this one's); and the daemon's heap and ArrayBuffers, and its RSS (the `stats` op,
// settled by a full collection: the daemon runs with --expose-gc) after the first search less
// before it.
//   node bench/search.mjs [--quick] [--json]
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchEnv, ROOT, startDaemon, stopDaemon } from './daemon.mjs';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const SUMMARIES = quick ? 200 : 10_000;
const RUNS = quick ? 20 : 300;
const TARGETS = { searchP95Ms: 50, indexMb: 50 };
const round = (n, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
const sorted = (values) => [...values].sort((a, b) => a - b);
const median = (values) => sorted(values)[Math.floor(values.length / 2)];
const p95 = (values) => sorted(values)[Math.min(values.length - 1, Math.ceil(values.length * 0.95) - 1)];

// A seeded generator, so every run searches the same log.
let seed = 42;
const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
const pick = (list) => list[Math.floor(random() * list.length)];
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'pa', 'qui', 'dor', 'fen', 'gal', 'hix', 'jun', 'bel', 'cor', 'war', 'yst'];
const VOCABULARY = Array.from({ length: 4000 }, () => Array.from({ length: 2 + Math.floor(random() * 3) }, () => pick(SYLLABLES)).join(''));
const COMMON = 'the parser reads quoted values and reports each error with its file line and key so the daemon keeps the last good configuration'.split(' ');
const sentence = (n) => Array.from({ length: n }, () => (random() < 0.5 ? pick(COMMON) : pick(VOCABULARY))).join(' ');
/** Each summary in turn, with the prompt before it; the same ones on every run. */
function* summaries() {
  for (let i = 1; i <= SUMMARIES; i += 1) {
    const prompt = `prompt ${i}: ${sentence(8)}`;
    yield { prompt, text: `Gist: entry ${i}: ${sentence(10)}\n\n## Decisions\n${sentence(60)}\n\n## Design\n${sentence(50)}\n\n## State\n${sentence(40)}` };
  }
}

// The index alone, in this process started again with --expose-gc: its heap and the
// ArrayBuffers it holds outside the heap, settled, less before.
if (args.includes('--index-alone')) {
  const { SummaryIndex } = await import(join(ROOT, 'dist', 'daemon', 'summaryIndex.js'));
  const all = [...summaries()];
  // Freed ArrayBuffers leave the count only once V8's sweeper has run after the collection: a turn later.
  const used = async () => {
    for (let i = 0; i < 2; i += 1) {
      globalThis.gc();
      await new Promise((settled) => setTimeout(settled, 50));
    }
    const { heapUsed, arrayBuffers } = process.memoryUsage();
    return heapUsed + arrayBuffers;
  };
  const before = await used();
  const index = new SummaryIndex();
  // As the daemon has them: the text whole, the gist its `Gist:` line gives (submit parses it so).
  all.forEach(({ text }, i) => index.put('bench', i + 1, { text, gist: text.slice('Gist: '.length, text.indexOf('\n')) }));
  console.log(JSON.stringify({ indexMb: ((await used()) - before) / 2 ** 20, hits: index.search(VOCABULARY[0]).length }));
  process.exit(0);
}
const alone = spawnSync(process.execPath, ['--expose-gc', import.meta.filename, ...args.filter((a) => a === '--quick'), '--index-alone'], { encoding: 'utf8' });
if (alone.status !== 0) throw new Error(`the index alone could not be measured: ${alone.stderr}`);
const indexAlone = JSON.parse(alone.stdout.trim().split('\n').at(-1));

const { Client } = await import(join(ROOT, 'dist', 'client', 'socketClient.js'));

const dir = mkdtempSync(join(tmpdir(), 'recap-bench-search-'));
const project = join(dir, 'project');
mkdirSync(join(project, '.git'), { recursive: true });
// Word counting and no grounding: the summaries go in quickly; search does the same work whatever the encoding.
writeFileSync(
  join(dir, 'config.conf'),
  [
    'TOKEN_ENCODING=words',
    'TOKEN_THRESHOLD=1000000',
    'REQUIRED_SECTIONS=("Decisions" "Design" "State")',
    'MIN_TOKENS_PER_SECTION=1',
    'SUMMARY_MIN_TOKENS=1',
    'SUMMARY_GROUNDING=off',
  ].join('\n'),
);
const env = benchEnv(dir);
const daemon = await startDaemon(env, ['--expose-gc']);
const client = await Client.connect(env.RECAP_SOCKET);
const ask = (op, fields) => client.request(op, { cwd: project, ...fields });

try {
  let i = 0;
  for (const { prompt, text } of summaries()) {
    i += 1;
    await ask('record', { kind: 'prompt', text: prompt });
    const answer = await ask('submit', { text });
    if (!answer.accepted) throw new Error(`summary ${i} was rejected: ${answer.problems.join('; ')}`);
  }
  // Twice: ArrayBuffers freed by the first collection leave the count once V8's sweeper has run.
  const settled = async () => {
    await client.request('stats', { settle: true });
    const { memory } = await client.request('stats', { settle: true });
    return { ...memory, heapUsed: memory.heapUsed + memory.arrayBuffers };
  };
  const before = await settled();
  const firstStarted = performance.now();
  const first = await ask('search', { query: VOCABULARY[0] });
  const firstSearchMs = round(performance.now() - firstStarted);
  const after = await settled();
  const mb = (bytes) => round(bytes / 2 ** 20);
  const queries = Array.from({ length: RUNS }, (_, i) => (i % 3 === 0 ? pick(VOCABULARY) : i % 3 === 1 ? pick(VOCABULARY).slice(0, 5) : `${pick(VOCABULARY)} ${pick(VOCABULARY)}`));
  const ms = [];
  let hits = 0;
  for (const query of queries) {
    const started = performance.now();
    const answer = await ask('search', { query });
    ms.push(performance.now() - started);
    hits += answer.hits.length;
  }
  const result = {
    targets: TARGETS,
    summaries: SUMMARIES,
    runs: RUNS,
    firstSearchMs,
    firstHits: first.hits.length,
    indexMb: round(indexAlone.indexMb),
    daemon: { heapMb: mb(after.heapUsed - before.heapUsed), rssMb: mb(after.rss - before.rss), heapAfterMb: mb(after.heapUsed), rssAfterMb: mb(after.rss) },
    search: { medianMs: round(median(ms), 2), p95Ms: round(p95(ms), 2), meanHits: round(hits / RUNS) },
  };
  if (args.includes('--json')) console.log(JSON.stringify(result));
  else {
    console.log(`search over ${SUMMARIES} summaries, ${RUNS} queries (target p95 < ${TARGETS.searchP95Ms} ms, index < ${TARGETS.indexMb} MB)`);
    console.log(`search: median ${result.search.medianMs} ms, p95 ${result.search.p95Ms} ms (target ${TARGETS.searchP95Ms} ms), ${result.search.meanHits} hits on average`);
    console.log(`index alone: ${result.indexMb} MB of heap and ArrayBuffers (target ${TARGETS.indexMb} MB)`);
    console.log(
      `daemon, settled, after the first search less before: heap and ArrayBuffers ${result.daemon.heapMb} MB, RSS ${result.daemon.rssMb} MB (heap and ArrayBuffers ${result.daemon.heapAfterMb} MB, RSS ${result.daemon.rssAfterMb} MB in all)`,
    );
    console.log(`first search, building the index: ${firstSearchMs} ms`);
  }
} finally {
  client.close();
  await stopDaemon(daemon);
  rmSync(dir, { recursive: true, force: true });
}
