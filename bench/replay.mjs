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

const dist = (p) => import(join(root, 'dist', p));
const { EventStore } = await dist('daemon/eventStore.js');
const { Projection } = await dist('daemon/projection.js');
const { encodeSnapshot } = await dist('daemon/snapshot.js');
const { projectionAt } = await dist('daemon/audit.js');
const { checkTool, recordInteraction, submitSummary } = await dist('events/gate.js');
const { DEFAULT_CONFIG } = await dist('events/config.js');
const { wordsCounter } = await dist('events/tokens.js');
const { CURRENT_VERSION } = await dist('events/events.js');

const args = process.argv.slice(2);
const sizes = args.includes('--quick') ? [10_000, 100_000] : [10_000, 100_000, 1_000_000];
const TARGETS = { replayPerSecond: 300_000, startupMs: 500, startupRssMb: 200, replayAtMs: 500 };
const SNAPSHOT_EVERY = 10_000;

const config = { ...DEFAULT_CONFIG, TOKEN_ENCODING: 'words', TOKEN_WORD_RATIO: 1.3 };
const ctx = { config, count: wordsCounter(1.3), recapPaths: new Set(), protected: { paths: ['/nonexistent/recap'], home: '/nonexistent' } };
const PROMPT = 'Please make the parser report every error with its line and key, and keep going after the first one. '.repeat(3);
const SUMMARY = config.REQUIRED_SECTIONS.map(
  (s) => `## ${s}\n${'The parser now reports each problem with its file, line and key; the daemon keeps the last good configuration. '.repeat(4)}`,
).join('\n\n');

/**
 * A realistic log: 50 jobs, prompts, checks, denials, summaries; written in synced batches,
 * with a snapshot every SNAPSHOT_EVERY events thinned by the store as the daemon's are.
 * Resolves to the sequence numbers of the snapshots kept.
 */
async function makeLog(dir, size) {
  const store = await EventStore.open(join(dir, 'log'));
  const projection = new Projection();
  let batch = [];
  let seq = 0;
  const snapshots = [];
  const write = async () => {
    await store.writeStored(batch);
    batch = [];
    // One at a time: the store writes only the newest of the snapshots queued together.
    for (const snapshot of snapshots.splice(0)) await store.writeSnapshot(snapshot.seq, snapshot.bytes);
  };
  const now0 = Date.UTC(2026, 10, 1);
  for (let i = 0; seq < size; i += 1) {
    const job = `job-${String(i % 50).padStart(8, '0')}`;
    const state = projection.view(job);
    const now = now0 + i * 10;
    const decision = state.gate.tripped
      ? i % 3 === 0
        ? submitSummary({ type: 'SubmitSummary', job, text: SUMMARY, now }, state, ctx)
        : checkTool({ type: 'CheckTool', job, call: { name: 'Read', kind: 'read', paths: ['/src/a.ts'], input: { file_path: '/src/a.ts' } }, now }, state, ctx)
      : recordInteraction({ type: 'RecordInteraction', job, kind: 'prompt', text: PROMPT, now }, state, ctx);
    for (const event of decision.events) {
      if (seq >= size) break;
      seq += 1;
      const stored = { ...event, seq, version: CURRENT_VERSION[event.type] };
      projection.apply(stored);
      batch.push(stored);
      if (seq % SNAPSHOT_EVERY === 0) snapshots.push({ seq, bytes: encodeSnapshot(projection) });
    }
    if (batch.length >= 10_000) await write();
  }
  await write();
  const kept = await store.snapshotSeqs();
  await store.close();
  return kept;
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

async function replayRate(dir) {
  const store = await EventStore.open(join(dir, 'log'));
  const start = process.hrtime.bigint();
  // As the daemon rebuilds it at start-up and recap verify does: a batch of events per await.
  const projection = new Projection();
  await projection.applyBatches(store.readBatches());
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  await store.close();
  return projection.lastSeq / seconds;
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

async function exportRate(dir, size) {
  const out = join(dir, 'export.jsonl');
  const start = process.hrtime.bigint();
  await new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(root, 'bin', 'recap.js'), 'export', '--out', out], { env: envFor(dir), stdio: 'ignore' });
    child.once('exit', (code) => (code === 0 ? done() : fail(new Error(`export exited ${code}`))));
  });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { perSecond: size / seconds, megabytes: statSync(out).size / 1e6 };
}

const rows = [];
for (const size of sizes) {
  const dir = mkdtempSync(join(tmpdir(), 'recap-bench-replay-'));
  try {
    const kept = await makeLog(dir, size);
    const moments = await momentsOf(dir, size, kept);
    const replay = await replayRate(dir);
    const inProcessMs = await projectionAtMs(dir, moments);
    const withSnapshot = await startDaemon(dir, { settle: true });
    const exported = await exportRate(dir, size);
    const atMs = [];
    for (const at of moments) atMs.push(await replayAtMs(dir, at));
    await stop(withSnapshot.child);
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
      replayPerSecond: Math.round(replay),
      startupMs: Math.round(withSnapshot.ms),
      startupRssMb: Math.round(withSnapshot.rssMb),
      settledRssMb: Math.round(withSnapshot.settledRssMb),
      startupWithoutSnapshotMs: Math.round(fullReplay.ms),
      exportPerSecond: Math.round(exported.perSecond),
      snapshotsKept: kept.length,
      replayAtMoments: moments.length,
      replayAtMedianMs: Math.round(atMs[Math.floor(atMs.length / 2)]),
      replayAtMaxMs: Math.round(atMs.at(-1)),
      replayAtFullMs: Math.round(fullAtMs),
      projectionAtMedianMs: Math.round(inProcessMs[Math.floor(inProcessMs.length / 2)]),
      projectionAtMaxMs: Math.round(inProcessMs.at(-1)),
      // The baseline in this process: the whole log, as replay --at did it before snapshots.
      projectionAtFullMs: Math.round((size / replay) * 1000),
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
    `replay, start-up and export (targets: replay >= ${TARGETS.replayPerSecond}/s, start-up < ${TARGETS.startupMs} ms and RSS < ${TARGETS.startupRssMb} MB at 1M, replay --at < ${TARGETS.replayAtMs} ms; export has none)`,
  );
  console.log(`RSS: at "ready", and ${SETTLE_MS / 1000} s later (the token encoding is loaded right after "ready"); load average ${load}`);
  console.log(
    'events     replay/s   start-up ms (snapshot)  (no snapshot)  RSS MB ready  settled   export/s  replay --at ms median  max  (full replay)  in-process median  max  (full)',
  );
  for (const r of rows) {
    console.log(
      `${String(r.events).padEnd(10)} ${String(r.replayPerSecond).padStart(9)}  ${String(r.startupMs).padStart(22)}  ${String(r.startupWithoutSnapshotMs).padStart(13)}  ${String(r.startupRssMb).padStart(12)}  ${String(r.settledRssMb).padStart(7)}  ${String(r.exportPerSecond).padStart(9)}  ${String(r.replayAtMedianMs).padStart(21)}  ${String(r.replayAtMaxMs).padStart(4)}  ${String(r.replayAtFullMs).padStart(13)}  ${String(r.projectionAtMedianMs).padStart(17)}  ${String(r.projectionAtMaxMs).padStart(4)}  ${String(r.projectionAtFullMs).padStart(6)}`,
    );
  }
}
