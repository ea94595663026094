#!/usr/bin/env node
// Benchmark: what checking recap's installed code against the manifest `recap install` wrote
// adds to the daemon's start. The check alone, in a fresh Node each time as bin/recap.js runs it
// before it loads the daemon (lstat of every recorded folder and hashed file; nothing read);
// and `recap daemon` from spawn to "ready" on an empty log, with a manifest and without one
// (no check), interleaved. Beside them: what `recap install` takes to write it (every file hashed).
//   node bench/codeManifest.mjs [--quick] [--json]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchEnv, ROOT, startDaemon, stopDaemon } from './daemon.mjs';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const RUNS = quick ? 5 : 15;
const TARGETS = { checkMs: 50 };
const round = (n, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const p95 = (values) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil(values.length * 0.95) - 1)];

const module = join(ROOT, 'dist', 'common', 'codeManifest.js');
const { recordInstalledCode } = await import(module);

const dir = mkdtempSync(join(tmpdir(), 'recap-bench-manifest-'));
try {
  const withManifest = join(dir, 'with');
  let started = performance.now();
  recordInstalledCode({ RECAP_DATA_DIR: join(withManifest, 'data') }, 'bench');
  const recordMs = performance.now() - started;

  // The check as the daemon's start runs it: once, in a Node that has loaded nothing else.
  const probe = `const { checkInstalledCode } = await import(${JSON.stringify(module)});
const t = performance.now(); const cpu = process.cpuUsage(); const v = checkInstalledCode({ RECAP_DATA_DIR: ${JSON.stringify(join(withManifest, 'data'))} });
const used = process.cpuUsage(cpu); const ms = performance.now() - t; if (v.state !== 'verified') throw new Error(v.state);
console.log(JSON.stringify({ ms, cpuMs: (used.user + used.system) / 1000, files: v.files }));`;
  const checks = [];
  // CPU time beside the wall time: on a busy machine the wall time waits for a core, the CPU time does not.
  const cpus = [];
  let files = 0;
  for (let run = 0; run < RUNS; run += 1) {
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`the check failed: ${result.stderr}`);
    const { ms, cpuMs, files: count } = JSON.parse(result.stdout);
    checks.push(ms);
    cpus.push(cpuMs);
    files = count;
  }

  // `recap daemon` to ready, interleaved: a data folder with the manifest, and one without (no check).
  const starts = { withManifest: [], without: [] };
  for (let run = 0; run < RUNS; run += 1) {
    for (const kind of ['withManifest', 'without']) {
      const base = kind === 'withManifest' ? withManifest : join(dir, 'without');
      // An empty log each time: the start's own cost, not a replay.
      rmSync(join(base, 'data', 'log'), { recursive: true, force: true });
      const env = benchEnv(base);
      started = performance.now();
      const daemon = await startDaemon(env);
      starts[kind].push(performance.now() - started);
      await stopDaemon(daemon);
    }
  }

  const result = {
    targets: TARGETS,
    runs: RUNS,
    files,
    recordMs: round(recordMs),
    check: { medianMs: round(median(checks)), p95Ms: round(p95(checks)), cpuMedianMs: round(median(cpus)) },
    start: {
      withManifestMs: round(median(starts.withManifest)),
      withoutMs: round(median(starts.without)),
      addedMs: round(median(starts.withManifest) - median(starts.without)),
    },
  };
  if (args.includes('--json')) console.log(JSON.stringify(result));
  else {
    console.log(`the code manifest's check at daemon start (target < ${TARGETS.checkMs} ms), ${RUNS} runs, ${files} files`);
    console.log(`check alone, fresh Node: median ${result.check.medianMs} ms, p95 ${result.check.p95Ms} ms; CPU time median ${result.check.cpuMedianMs} ms`);
    console.log(`recap daemon to ready: ${result.start.withManifestMs} ms with a manifest, ${result.start.withoutMs} ms without (no check): ${result.start.addedMs} ms added`);
    console.log(`recap install writing it (every file hashed): ${result.recordMs} ms`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
