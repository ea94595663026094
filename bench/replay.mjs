#!/usr/bin/env node
// Benchmark: replay, `recap replay --at` (from the nearest snapshot, and by a full replay as
// the baseline), daemon start-up (with and without a snapshot) and export, on logs of 10k,
// 100k and 1M events made by the real decider.
//   node bench/replay.mjs [--quick] [--json]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { benchEnv, ROOT as root, startDaemon as spawnDaemon, stopDaemon as stop } from './daemon.mjs';
import { documents } from './corpus.mjs';
import { makeDecidedLog, PROMPT as BASE_PROMPT } from './decidedLog.mjs';

const dist = (p) => import(join(root, 'dist', p));
const { EventStore } = await dist('daemon/eventStore.js');
const { Projection } = await dist('daemon/projection.js');
const { projectionAt, verifyLog } = await dist('daemon/audit.js');
const { DEFAULT_CONFIG } = await dist('events/config.js');
const { Client } = await dist('client/socketClient.js');

const args = process.argv.slice(2);
const quick = args.includes('--quick');
// --sizes=10000,100000: those logs alone (to look at one of them).
const sizes =
  args
    .find((a) => a.startsWith('--sizes='))
    ?.slice('--sizes='.length)
    .split(',')
    .map(Number) ?? (quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000]);
/** How long the load runs on the largest log while the daemon's RSS is sampled. */
const LOAD_SECONDS = quick ? 10 : 60;
const TARGETS = {
  replayPerSecond: 300_000,
  verifyPerSecond: 300_000,
  exportPerSecond: 250_000,
  startupMs: 500,
  startupRssMb: 200,
  replayAtMs: 500,
  loadedRssMb: 150,
  loadedGrowthMb: 10,
};
const SNAPSHOT_EVERY = 10_000;

const PROMPT = BASE_PROMPT.repeat(3);

/**
 * A realistic log: 50 jobs, prompts, checks, denials, summaries, with a snapshot every
 * SNAPSHOT_EVERY events. Resolves to the sequence numbers of the snapshots kept.
 */
async function makeLog(dir, size) {
  const now0 = Date.UTC(2026, 10, 1);
  const { snapshots } = await makeDecidedLog(join(dir, 'log'), {
    size,
    snapshotEvery: SNAPSHOT_EVERY,
    jobOf: (i) => `job-${String(i % 50).padStart(8, '0')}`,
    timeOf: (i) => now0 + i * 10,
    promptOf: () => PROMPT,
  });
  return snapshots;
}

/** The time of event `seq`, as `recap replay --at` takes it. */
async function timeOf(dir, seq) {
  const store = await EventStore.open(join(dir, 'log'));
  const [event] = await store.get([seq]);
  await store.close();
  return new Date(event.data.time).toISOString();
}

/**
 * The moments `recap replay --at` is timed at: the farthest from a snapshot (the event just
 * before each of a few kept ones, and the last event), one of them by time.
 */
async function momentsOf(dir, size, kept) {
  const seqs = [...kept.map((s) => s - 1), size].filter((s) => s >= 1);
  const picked = [...new Set([0, 0.25, 0.5, 0.75, 1].map((f) => seqs[Math.round(f * (seqs.length - 1))]))];
  const middle = picked[Math.floor(picked.length / 2)];
  return [...picked.map((s) => `#${s}`), await timeOf(dir, middle)];
}

/** The daemon's share of `recap replay --at` each moment: the projection there, in this process. */
async function projectionAtMs(dir, moments) {
  const store = await EventStore.open(join(dir, 'log'));
  const ms = [];
  for (const at of moments) {
    const start = process.hrtime.bigint();
    await projectionAt(store, at.startsWith('#') ? { seq: Number(at.slice(1)) } : { time: Date.parse(at) });
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  await store.close();
  return ms.sort((a, b) => a - b);
}

/** Wall time of one `recap replay --at` through the running daemon, CLI start-up included. */
async function replayAtMs(dir, at) {
  const start = process.hrtime.bigint();
  await new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(root, 'bin', 'recap.js'), 'replay', '--at', at, '--json'], { env: envFor(dir), stdio: 'ignore' });
    child.once('exit', (code) => (code === 0 ? done() : fail(new Error(`replay --at ${at} exited ${code}`))));
  });
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/**
 * Replay and verify in this process, the store opened before the clock starts: a replay as
 * the daemon rebuilds its projection at start-up (a batch of events per await), and
 * verifyLog as `recap verify` runs it in the daemon (hashes, links, a full replay, the
 * comparison with a live projection). The first of each is cold (V8 has not yet optimized
 * the decoder or the projection: on a small log that is most of the time); the figure is
 * the median of the next RUNS, the cold one beside it.
 */
async function inProcessRates(dir) {
  const RUNS = 3;
  const store = await EventStore.open(join(dir, 'log'));
  const replays = [];
  const verifies = [];
  let projection;
  try {
    for (let i = 0; i <= RUNS; i += 1) {
      let start = process.hrtime.bigint();
      projection = new Projection();
      await projection.applyBatches(store.readBatches());
      replays.push(projection.lastSeq / (Number(process.hrtime.bigint() - start) / 1e9));
      const live = projection;
      start = process.hrtime.bigint();
      const verified = await verifyLog(store, () => live);
      if (!verified.ok) throw new Error(`verify found problems: ${JSON.stringify(verified.problems.slice(0, 3))}`);
      verifies.push(verified.events / (Number(process.hrtime.bigint() - start) / 1e9));
    }
  } finally {
    await store.close();
  }
  const warm = (rates) => rates.slice(1).sort((a, b) => a - b)[Math.floor(RUNS / 2)];
  return { replayCold: replays[0], replay: warm(replays), verifyCold: verifies[0], verify: warm(verifies) };
}

/** The log is made at `dir`/log: the data folder is `dir` itself. */
const envFor = (dir) => benchEnv(dir, { RECAP_DATA_DIR: dir, RECAP_HTTP_PORT: '0' });

const rssOf = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
/** How long after "ready" the RSS is read again: the daemon loads the token encoding right after it. */
const SETTLE_MS = 2000;

/** Spawn to "ready"; RSS read from /proc once ready, and again SETTLE_MS later (`settle`). */
async function startDaemon(dir, { settle = false } = {}) {
  const start = process.hrtime.bigint();
  const child = await spawnDaemon(envFor(dir));
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const rssMb = rssOf(child.pid);
  if (settle) await new Promise((r) => setTimeout(r, SETTLE_MS));
  return { child, ms, rssMb, settledRssMb: settle ? rssOf(child.pid) : undefined };
}

/** Wall time of `recap <args>` through the running daemon, CLI start-up included. */
async function commandMs(dir, args) {
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
async function commandRates(dir, size, runs) {
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
const TICK_MS = 20;
/** Distinct words of recap's documents, cut to a prime count so that every stride walks all of them. */
const VOCABULARY = (() => {
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
function loadSummary(round, last) {
  const stride = 1 + (round % (VOCABULARY.length - 1));
  let at = round * 7;
  const section = () => Array.from({ length: 70 }, () => VOCABULARY[(at = (at + stride) % VOCABULARY.length)]).join(' ');
  const gist = `Gist: load round ${round}, the parser's error report through interaction ${last}\n\n`;
  return gist + DEFAULT_CONFIG.REQUIRED_SECTIONS.map((heading) => `## ${heading}\n${section()} ${last}`).join('\n\n');
}
const LOAD_CLIENTS = 8;
async function rssUnderLoad(child, dir, seconds) {
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

const rows = [];
for (const size of sizes) {
  const dir = mkdtempSync(join(tmpdir(), 'recap-bench-replay-'));
  try {
    const kept = await makeLog(dir, size);
    const moments = await momentsOf(dir, size, kept);
    const rates = await inProcessRates(dir);
    const inProcessMs = await projectionAtMs(dir, moments);
    const withSnapshot = await startDaemon(dir, { settle: true });
    let commands;
    let afterCommandsRssMb;
    const atMs = [];
    try {
      commands = await commandRates(dir, size, size >= 1_000_000 ? 3 : 5);
      for (const at of moments) atMs.push(await replayAtMs(dir, at));
      afterCommandsRssMb = rssOf(withSnapshot.child.pid);
    } finally {
      await stop(withSnapshot.child);
    }
    // The load on a daemon of its own, as started by an agent's first hook: the commands
    // above leave its heap as large as a full replay and an export made it.
    let loaded;
    if (size === sizes.at(-1)) {
      const daemon = await startDaemon(dir, { settle: true });
      try {
        loaded = { ...(await rssUnderLoad(daemon.child, dir, LOAD_SECONDS)), afterCommandsRssMb: Math.round(afterCommandsRssMb) };
      } finally {
        await stop(daemon.child);
      }
    }
    const db = new Level(join(dir, 'log'), { keyEncoding: 'view', valueEncoding: 'view' });
    await db.clear({ gte: Buffer.from([0xff]) });
    await db.close();
    const fullReplay = await startDaemon(dir);
    // The baseline: the same command at the last event, by a replay of the whole log.
    const fullAtMs = await replayAtMs(dir, `#${size}`);
    await stop(fullReplay.child);
    atMs.sort((a, b) => a - b);
    rows.push({
      events: size,
      replayPerSecond: Math.round(rates.replay),
      replayColdPerSecond: Math.round(rates.replayCold),
      verifyPerSecond: Math.round(rates.verify),
      verifyColdPerSecond: Math.round(rates.verifyCold),
      verifyCommandPerSecond: Math.round(commands.verify.perSecond),
      verifyCommandWithoutStartPerSecond: Math.round(commands.verify.withoutStartPerSecond),
      statusMs: Math.round(commands.statusMs),
      startupMs: Math.round(withSnapshot.ms),
      startupRssMb: Math.round(withSnapshot.rssMb),
      settledRssMb: Math.round(withSnapshot.settledRssMb),
      startupWithoutSnapshotMs: Math.round(fullReplay.ms),
      exportPerSecond: Math.round(commands.export.perSecond),
      exportWithoutStartPerSecond: Math.round(commands.export.withoutStartPerSecond),
      exportMegabytes: Math.round(commands.exportMegabytes),
      snapshotsKept: kept.length,
      replayAtMoments: moments.length,
      replayAtMedianMs: Math.round(atMs[Math.floor(atMs.length / 2)]),
      replayAtMaxMs: Math.round(atMs.at(-1)),
      replayAtFullMs: Math.round(fullAtMs),
      projectionAtMedianMs: Math.round(inProcessMs[Math.floor(inProcessMs.length / 2)]),
      projectionAtMaxMs: Math.round(inProcessMs.at(-1)),
      // The baseline in this process: the whole log, as replay --at did it before snapshots.
      projectionAtFullMs: Math.round((size / rates.replay) * 1000),
      ...(loaded ? { loaded } : {}),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The machine may be busy with other work: the load average says how busy, for the record.
const load = loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');
if (args.includes('--json')) console.log(JSON.stringify({ targets: TARGETS, rows, loadavg: loadavg() }));
else {
  console.log(
    `targets: replay and verify >= ${TARGETS.replayPerSecond}/s, export >= ${TARGETS.exportPerSecond}/s, start-up < ${TARGETS.startupMs} ms and RSS < ${TARGETS.startupRssMb} MB at 1M, replay --at < ${TARGETS.replayAtMs} ms, RSS under load < ${TARGETS.loadedRssMb} MB; load average ${load}`,
  );
  console.log('in-process replay and verify: median of 3 warm runs (the cold first run beside); commands: wall time, CLI start-up included, and without a `recap status`');
  console.log('events      replay/s (cold)   verify/s (cold)   recap verify/s (w/o start)   recap export/s (w/o start)  status ms');
  for (const r of rows) {
    console.log(
      `${String(r.events).padEnd(10)} ${`${r.replayPerSecond} (${r.replayColdPerSecond})`.padStart(17)} ${`${r.verifyPerSecond} (${r.verifyColdPerSecond})`.padStart(17)} ${`${r.verifyCommandPerSecond} (${r.verifyCommandWithoutStartPerSecond})`.padStart(28)} ${`${r.exportPerSecond} (${r.exportWithoutStartPerSecond})`.padStart(28)} ${String(r.statusMs).padStart(10)}`,
    );
  }
  console.log('events      start-up ms (snapshot)  (no snapshot)  RSS MB ready  settled  replay --at ms median  max  (full replay)  in-process median  max  (full)');
  for (const r of rows) {
    console.log(
      `${String(r.events).padEnd(10)} ${String(r.startupMs).padStart(23)}  ${String(r.startupWithoutSnapshotMs).padStart(13)}  ${String(r.startupRssMb).padStart(12)}  ${String(r.settledRssMb).padStart(7)}  ${String(r.replayAtMedianMs).padStart(21)}  ${String(r.replayAtMaxMs).padStart(4)}  ${String(r.replayAtFullMs).padStart(13)}  ${String(r.projectionAtMedianMs).padStart(17)}  ${String(r.projectionAtMaxMs).padStart(4)}  ${String(r.projectionAtFullMs).padStart(6)}`,
    );
  }
  for (const r of rows.filter((row) => row.loaded)) {
    const l = r.loaded;
    console.log(
      `RSS under ${l.seconds} s of load at ${r.events} events (${l.requestsPerSecond} requests/s): start ${l.startMb} MB, max ${l.maxMb} MB, end ${l.endMb} MB, growth over the second half ${l.secondHalfGrowthMb} MB`,
    );
  }
}
