// What the log benchmarks share (bench/replay.mjs and bench/scale.mjs): a daemon started on a
// log at `dir`/log (the data folder is `dir`) with its RSS read from /proc, the wall time of a
// `recap` command through it, the moments `recap replay --at` is timed at, and a steady load
// of checks, tool outputs, prompts and summaries while the daemon's RSS is sampled.
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { benchEnv, ROOT as root, startDaemon as spawnDaemon } from '../daemon.mjs';
import { documents } from '../corpus.mjs';
import { PROMPT as BASE_PROMPT } from '../decidedLog.mjs';

const dist = (p) => import(join(root, 'dist', p));
const { EventStore } = await dist('daemon/eventStore.js');
const { DEFAULT_CONFIG } = await dist('events/config.js');
const { Client } = await dist('client/socketClient.js');

/** The prompt the logs and the load record: a few sentences. */
export const PROMPT = BASE_PROMPT.repeat(3);

/** The log sizes `--sizes=10000,100000` names, else `defaults`: those logs alone (to look at one of them). */
export function sizesArg(args, defaults) {
  return (
    args
      .find((a) => a.startsWith('--sizes='))
      ?.slice('--sizes='.length)
      .split(',')
      .map(Number) ?? defaults
  );
}

/** The time of event `seq`, as `recap replay --at` takes it. */
export async function timeOf(dir, seq) {
  const store = await EventStore.open(join(dir, 'log'));
  const [event] = await store.get([seq]);
  await store.close();
  return new Date(event.data.time).toISOString();
}

/**
 * The moments `recap replay --at` is timed at: the farthest from a snapshot (the event just
 * before each of a few kept ones, and the last event), one of them by time.
 */
export async function momentsOf(dir, size, kept) {
  const seqs = [...kept.map((s) => s - 1), size].filter((s) => s >= 1);
  const picked = [...new Set([0, 0.25, 0.5, 0.75, 1].map((f) => seqs[Math.round(f * (seqs.length - 1))]))];
  const middle = picked[Math.floor(picked.length / 2)];
  return [...picked.map((s) => `#${s}`), await timeOf(dir, middle)];
}

/** Wall time of one `recap replay --at` through the running daemon, CLI start-up included. */
export async function replayAtMs(dir, at) {
  const start = process.hrtime.bigint();
  await new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(root, 'bin', 'recap.js'), 'replay', '--at', at, '--json'], { env: envFor(dir), stdio: 'ignore' });
    child.once('exit', (code) => (code === 0 ? done() : fail(new Error(`replay --at ${at} exited ${code}`))));
  });
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** The log is made at `dir`/log: the data folder is `dir` itself. */
export const envFor = (dir) => benchEnv(dir, { RECAP_DATA_DIR: dir, RECAP_HTTP_PORT: '0' });

export const rssOf = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
/** How long after "ready" the RSS is read again: the daemon loads the token encoding right after it. */
export const SETTLE_MS = 2000;

/** Spawn to "ready"; RSS read from /proc once ready, and again SETTLE_MS later (`settle`). */
export async function startDaemon(dir, { settle = false } = {}) {
  const start = process.hrtime.bigint();
  const child = await spawnDaemon(envFor(dir));
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const rssMb = rssOf(child.pid);
  if (settle) await new Promise((r) => setTimeout(r, SETTLE_MS));
  return { child, ms, rssMb, settledRssMb: settle ? rssOf(child.pid) : undefined };
}

/** Wall time of `recap <args>` through the running daemon, CLI start-up included. */
export async function commandMs(dir, args) {
  const start = process.hrtime.bigint();
  await new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(root, 'bin', 'recap.js'), ...args], { env: envFor(dir), stdio: 'ignore' });
    child.once('exit', (code) => (code === 0 ? done() : fail(new Error(`recap ${args.join(' ')} exited ${code}`))));
  });
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/**
 * `recap export` of the whole log, `recap verify` and `recap status` (the fixed cost of a
 * command: Node, the CLI's modules, the connection) through the same daemon, interleaved,
 * each the median of `runs`.
 */
export async function commandRates(dir, size, runs) {
  const out = join(dir, 'export.jsonl');
  const ms = { export: [], verify: [], status: [] };
  for (let i = 0; i < runs; i += 1) {
    ms.status.push(await commandMs(dir, ['status']));
    ms.export.push(await commandMs(dir, ['export', '--out', out]));
    ms.verify.push(await commandMs(dir, ['verify']));
  }
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const status = median(ms.status);
  const rates = (wall) => ({ perSecond: size / (wall / 1000), withoutStartPerSecond: size / (Math.max(1, wall - status) / 1000) });
  return { statusMs: status, export: rates(median(ms.export)), verify: rates(median(ms.verify)), exportMegabytes: statSync(out).size / 1e6 };
}

/**
 * The daemon's RSS under a steady load, from /proc every few seconds: LOAD_CLIENTS
 * connections, each sending every TICK_MS a check, a tool output and a prompt (counted
 * exactly, so the token encoding is in memory). When a job's gate trips its agent writes
 * the summary, as in use: a job that never does keeps every interaction pending (texts
 * included) and grows by design.
 */
export const TICK_MS = 20;
/** Distinct words of recap's documents, cut to a prime count so that every stride walks all of them. */
export const VOCABULARY = (() => {
  const words = [
    ...new Set(
      documents(root)
        .toLowerCase()
        .match(/\b[a-z]{4,}\b/g),
    ),
  ];
  let n = words.length;
  while (!isPrime(n)) n -= 1;
  return words.slice(0, n);
})();
function isPrime(n) {
  for (let d = 2; d * d <= n; d += 1) if (n % d === 0) return false;
  return n > 1;
}
/**
 * The `round`th summary of a job: words of the documents taken with a stride of its own, so
 * that the validator sees no repetition and no earlier summary submitted again (sense is
 * not the point), and the number of the last interaction (the validator wants the summary
 * to name something concrete of what it summarizes).
 */
export function loadSummary(round, last) {
  const stride = 1 + (round % (VOCABULARY.length - 1));
  let at = round * 7;
  const section = () => Array.from({ length: 70 }, () => VOCABULARY[(at = (at + stride) % VOCABULARY.length)]).join(' ');
  const gist = `Gist: load round ${round}, the parser's error report through interaction ${last}\n\n`;
  return gist + DEFAULT_CONFIG.REQUIRED_SECTIONS.map((heading) => `## ${heading}\n${section()} ${last}`).join('\n\n');
}
export const LOAD_CLIENTS = 8;
export async function rssUnderLoad(child, dir, seconds) {
  const sampleMs = seconds >= 30 ? 5000 : 1000;
  const clients = await Promise.all(Array.from({ length: LOAD_CLIENTS }, () => Client.connect(envFor(dir).RECAP_SOCKET)));
  const samples = [rssOf(child.pid)];
  let requests = 0;
  let summaries = 0;
  const rounds = new Map();
  let failure;
  const deadline = Date.now() + seconds * 1000;
  const lanes = clients.map(async (client, lane) => {
    for (let i = 0; Date.now() < deadline && !failure; i += 1) {
      const job = `load-${lane}-${i % 5}`;
      const tick = new Promise((r) => setTimeout(r, TICK_MS));
      try {
        const [, , prompt] = await Promise.all([
          client.request('check', { job, tool: 'Read', input: { file_path: '/src/a.ts' } }),
          client.request('record', { job, kind: 'tool', text: `tool output ${i}: ${PROMPT}` }),
          client.request('record', { job, kind: 'prompt', text: `${PROMPT} (${i})` }),
        ]);
        requests += 3;
        if (prompt.gate?.tripped) {
          const round = (rounds.get(job) ?? 0) + 1;
          rounds.set(job, round);
          const answer = await client.request('submit', { job, text: loadSummary(round, i) });
          requests += 1;
          if (answer.accepted === false) throw new Error(`the load's summary was rejected: ${JSON.stringify(answer).slice(0, 300)}`);
          summaries += 1;
        }
      } catch (error) {
        failure = error;
      }
      await tick;
    }
  });
  const sampler = setInterval(() => samples.push(rssOf(child.pid)), sampleMs);
  await Promise.all(lanes);
  clearInterval(sampler);
  samples.push(rssOf(child.pid));
  for (const client of clients) client.close();
  if (failure) throw failure;
  const half = samples[Math.floor(samples.length / 2)];
  return {
    seconds,
    sampleMs,
    requestsPerSecond: Math.round(requests / seconds),
    summaries,
    startMb: Math.round(samples[0]),
    maxMb: Math.round(Math.max(...samples)),
    endMb: Math.round(samples.at(-1)),
    // Flat: how much it still grew over the second half of the load.
    secondHalfGrowthMb: Math.round(samples.at(-1) - half),
  };
}
