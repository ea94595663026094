#!/usr/bin/env node
// Benchmark: the wall time of `recap-hook claude` answering a PreToolUse against a live
// daemon, next to a bare `node -e 0` fed the same payload. Runs are interleaved so both see
// the same machine load; the figures are medians.
//   node bench/hook.mjs [--runs N] [--json]
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1]) || 40;
const TARGET_RATIO = 1.15;

const dir = mkdtempSync(join(tmpdir(), 'recap-bench-'));
const project = join(dir, 'project');
mkdirSync(join(project, '.git'), { recursive: true });
const env = {
  ...process.env,
  RECAP_SOCKET: join(dir, 'run', 'recapd.sock'),
  RECAP_DATA_DIR: join(dir, 'data'),
  RECAP_CONFIG: join(dir, 'config.conf'),
  RECAP_LOG_LEVEL: 'info',
};
const payload = JSON.stringify({
  session_id: 'bench',
  transcript_path: join(dir, 't.jsonl'),
  cwd: project,
  hook_event_name: 'PreToolUse',
  tool_name: 'Read',
  tool_input: { file_path: join(project, 'src', 'index.ts') },
  tool_use_id: 'toolu_bench',
});

const daemon = spawn(process.execPath, [join(root, 'bin', 'recap.js'), 'daemon'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
await new Promise((ready, fail) => {
  let log = '';
  daemon.stderr.on('data', (chunk) => {
    log += chunk;
    if (log.includes('recap daemon ready')) ready();
  });
  daemon.once('exit', () => fail(new Error(`the daemon exited: ${log}`)));
});

const commands = {
  'node -e 0': [process.execPath, ['-e', '0']],
  'recap-hook claude': [process.execPath, [join(root, 'bin', 'recap-hook.cjs'), 'claude']],
};
const times = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
// Warm the file cache and the daemon's encoding first.
for (const [cmd, argv] of Object.values(commands)) spawnSync(cmd, argv, { input: payload, env });
for (let i = 0; i < runs; i += 1) {
  for (const [name, [cmd, argv]] of Object.entries(commands)) {
    const start = process.hrtime.bigint();
    const result = spawnSync(cmd, argv, { input: payload, env });
    times[name].push(Number(process.hrtime.bigint() - start) / 1e6);
    if (result.status !== 0) throw new Error(`${name} exited ${result.status}: ${result.stderr}`);
  }
}
daemon.kill('SIGTERM');
await new Promise((r) => daemon.once('exit', r));
rmSync(dir, { recursive: true, force: true });

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const base = median(times['node -e 0']);
const hook = median(times['recap-hook claude']);
const result = {
  runs,
  medianMs: { nodeE0: +base.toFixed(1), recapHook: +hook.toFixed(1) },
  ratio: +(hook / base).toFixed(3),
  target: TARGET_RATIO,
  met: hook / base <= TARGET_RATIO,
};
if (args.includes('--json')) console.log(JSON.stringify(result));
else {
  console.log(`hook process cost, ${runs} interleaved runs, medians:`);
  console.log(`  node -e 0            ${result.medianMs.nodeE0} ms`);
  console.log(`  recap-hook claude    ${result.medianMs.recapHook} ms   ratio ${result.ratio} (target <= ${TARGET_RATIO}) ${result.met ? 'met' : 'NOT met'}`);
}
