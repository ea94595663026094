#!/usr/bin/env node
// Benchmark: replay, daemon start-up (with and without a snapshot) and export, on logs of
// 10k, 100k and 1M events made by the real decider.
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
const { checkTool, recordInteraction, submitSummary } = await dist('events/gate.js');
const { DEFAULT_CONFIG } = await dist('events/config.js');
const { wordsCounter } = await dist('events/tokens.js');
const { CURRENT_VERSION } = await dist('events/events.js');

const args = process.argv.slice(2);
const sizes = args.includes('--quick') ? [10_000, 100_000] : [10_000, 100_000, 1_000_000];
const TARGETS = { replayPerSecond: 300_000, startupMs: 500, startupRssMb: 200 };
const SNAPSHOT_EVERY = 10_000;

const config = { ...DEFAULT_CONFIG, TOKEN_ENCODING: 'words', TOKEN_WORD_RATIO: 1.3 };
const ctx = { config, count: wordsCounter(1.3), recapPaths: new Set(), protected: { paths: ['/nonexistent/recap'], home: '/nonexistent' } };
const PROMPT = 'Please make the parser report every error with its line and key, and keep going after the first one. '.repeat(3);
const SUMMARY = config.REQUIRED_SECTIONS.map(
  (s) => `## ${s}\n${'The parser now reports each problem with its file, line and key; the daemon keeps the last good configuration. '.repeat(4)}`,
).join('\n\n');

/** A realistic log: 50 jobs, prompts, checks, denials, summaries; written in synced batches. */
async function makeLog(dir, size) {
  const store = await EventStore.open(join(dir, 'log'));
  const projection = new Projection();
  let batch = [];
  let seq = 0;
  let snapshot;
  const now0 = Date.UTC(2026, 10, 1);
  for (let i = 0; seq < size; i += 1) {
    const job = `job-${String(i % 50).padStart(8, '0')}`;
    const state = projection.view(job);
    const now = now0 + i * 10;
    const decision = state.gate.tripped
      ? i % 3 === 0
        ? submitSummary({ type: 'SubmitSummary', job, text: SUMMARY, now }, state, ctx)
        : checkTool({ type: 'CheckTool', job, tool: 'Read', input: { file_path: '/src/a.ts' }, now }, state, ctx)
      : recordInteraction({ type: 'RecordInteraction', job, kind: 'prompt', text: PROMPT, now }, state, ctx);
    for (const event of decision.events) {
      if (seq >= size) break;
      seq += 1;
      const stored = { ...event, seq, version: CURRENT_VERSION[event.type] };
      projection.apply(stored);
      batch.push(stored);
      if (seq % SNAPSHOT_EVERY === 0) snapshot = { seq, bytes: encodeSnapshot(projection) };
    }
    if (batch.length >= 10_000) {
      await store.writeStored(batch);
      batch = [];
    }
  }
  await store.writeStored(batch);
  if (snapshot) await store.writeSnapshot(snapshot.seq, snapshot.bytes);
  await store.close();
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
    await makeLog(dir, size);
    const replay = await replayRate(dir);
    const withSnapshot = await startDaemon(dir, { settle: true });
    const exported = await exportRate(dir, size);
    await stop(withSnapshot.child);
    const db = new Level(join(dir, 'log'), { keyEncoding: 'view', valueEncoding: 'view' });
    await db.clear({ gte: Buffer.from([0xff]) });
    await db.close();
    const fullReplay = await startDaemon(dir);
    await stop(fullReplay.child);
    rows.push({
      events: size,
      replayPerSecond: Math.round(replay),
      startupMs: Math.round(withSnapshot.ms),
      startupRssMb: Math.round(withSnapshot.rssMb),
      settledRssMb: Math.round(withSnapshot.settledRssMb),
      startupWithoutSnapshotMs: Math.round(fullReplay.ms),
      exportPerSecond: Math.round(exported.perSecond),
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
    `replay, start-up and export (targets: replay >= ${TARGETS.replayPerSecond}/s, start-up < ${TARGETS.startupMs} ms and RSS < ${TARGETS.startupRssMb} MB at 1M; export has none)`,
  );
  console.log(`RSS: at "ready", and ${SETTLE_MS / 1000} s later (the token encoding is loaded right after "ready"); load average ${load}`);
  console.log('events     replay/s   start-up ms (snapshot)  (no snapshot)  RSS MB ready  settled   export/s');
  for (const r of rows) {
    console.log(
      `${String(r.events).padEnd(10)} ${String(r.replayPerSecond).padStart(9)}  ${String(r.startupMs).padStart(22)}  ${String(r.startupWithoutSnapshotMs).padStart(13)}  ${String(r.startupRssMb).padStart(12)}  ${String(r.settledRssMb).padStart(7)}  ${String(r.exportPerSecond).padStart(9)}`,
    );
  }
}
