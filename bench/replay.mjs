#!/usr/bin/env node
// Benchmark: replay, `recap replay --at` (from the nearest snapshot, and by a full replay as
// the baseline), daemon start-up (with and without a snapshot) and export, on logs of 10k,
// 100k and 1M events made by the real decider.
//   node bench/replay.mjs [--quick] [--json]
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { ROOT as root, stopDaemon as stop } from './daemon.mjs';
import { makeDecidedLog } from './decidedLog.mjs';
import { commandRates, momentsOf, PROMPT, replayAtMs, rssOf, rssUnderLoad, sizesArg, startDaemon } from './lib/logBench.mjs';
import { packAsTheDaemonWould } from './lib/scaleLog.mjs';

const dist = (p) => import(join(root, 'dist', p));
const { EventStore } = await dist('daemon/eventStore.js');
const { Projection } = await dist('daemon/projection.js');
const { projectionAt, verifyLog } = await dist('daemon/audit.js');

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const sizes = sizesArg(args, quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000]);
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

/**
 * A realistic log: 50 jobs, prompts, checks, denials, summaries, with a snapshot every
 * SNAPSHOT_EVERY events, its older events in packs as a daemon keeps them. Resolves to the
 * sequence numbers of the snapshots kept.
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
  const store = await EventStore.open(join(dir, 'log'));
  await packAsTheDaemonWould(store);
  await store.close();
  return snapshots;
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
