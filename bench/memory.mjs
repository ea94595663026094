#!/usr/bin/env node
// Benchmark: handing a job's memory over, in the daemon, for a job of 1,000 accepted
// summaries that each name files (`## Files`: two read ranges and a ref). The memory is the
// newest summaries whole, the newest summary's files read from the disk as they are now
// (hashed, compared, one of them changed since), and an index of the older entries. Timed
// from the request's write to its answer over the socket: `context` as `recap context` asks,
// and a Claude Code SessionStart through the hook op, which also fits the memory into
// Claude Code's 10,000 characters.
//   node bench/memory.mjs [--quick] [--json]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchEnv, ROOT, startDaemon, stopDaemon } from './daemon.mjs';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const SUMMARIES = quick ? 100 : 1000;
const RUNS = quick ? 20 : 200;
const TARGETS = { handOverMs: 20 };
const round = (n, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
const sorted = (values) => [...values].sort((a, b) => a - b);
const median = (values) => sorted(values)[Math.floor(values.length / 2)];
const p95 = (values) => sorted(values)[Math.min(values.length - 1, Math.ceil(values.length * 0.95) - 1)];

const { Client } = await import(join(ROOT, 'dist', 'client', 'socketClient.js'));

const dir = mkdtempSync(join(tmpdir(), 'recap-bench-memory-'));
const project = join(dir, 'project');
mkdirSync(join(project, '.git'), { recursive: true });
mkdirSync(join(project, 'src'), { recursive: true });
const source = (name, n) => Array.from({ length: n }, (_, i) => `export function ${name}${i}(x) { return x * ${i} + ${n}; }`).join('\n');
writeFileSync(join(project, 'src', 'retry.ts'), source('retry', 120));
writeFileSync(join(project, 'src', 'parser.ts'), source('parse', 200));
writeFileSync(join(project, 'README.md'), '# the project\n');
// Word counting: the 1,000 summaries go in quickly; the hand-over does the same work whatever the encoding.
// Gists derived by recap: summaries of one short line each, which a gist of the agent's would echo.
writeFileSync(
  join(dir, 'config.conf'),
  [
    'TOKEN_ENCODING=words',
    'TOKEN_THRESHOLD=1000000',
    'REQUIRED_SECTIONS=("Notes")',
    'MIN_TOKENS_PER_SECTION=1',
    'SUMMARY_MIN_TOKENS=1',
    'SUMMARY_GROUNDING=off',
    'GIST=recap',
  ].join('\n'),
);
const env = benchEnv(dir);
const daemon = await startDaemon(env);
const client = await Client.connect(env.RECAP_SOCKET);
const ask = (op, fields) => client.request(op, { cwd: project, ...fields });

try {
  const WORDS = 'the parser now reads quoted values arrays comments and defaults and reports every mistake with its file line and key'.split(' ');
  for (let i = 1; i <= SUMMARIES; i += 1) {
    await ask('record', { kind: 'prompt', text: `prompt ${i}: make the parser report its errors with their lines` });
    const files = `## Files\n- read src/retry.ts:${1 + (i % 40)}-${30 + (i % 40)} — the retry loop\n- read src/parser.ts:1-40 — the parser's entry\n- ref README.md — the overview`;
    const text = `## Notes\nentry-${i} ${WORDS.slice(0, 6 + (i % 13)).join(' ')} (step ${i * 7}).\n\n${files}`;
    const answer = await ask('submit', { text });
    if (!answer.accepted) throw new Error(`summary ${i} was rejected: ${answer.problems.join('; ')}`);
  }
  // One read range changed since the newest summary: it is handed over marked as changed.
  writeFileSync(join(project, 'src', 'parser.ts'), source('parseAgain', 200));

  const time = async (request) => {
    const ms = [];
    for (let run = 0; run < RUNS; run += 1) {
      const started = performance.now();
      await request();
      ms.push(performance.now() - started);
    }
    return { medianMs: round(median(ms), 2), p95Ms: round(p95(ms), 2) };
  };
  const context = await ask('context', {});
  if (!context.text.includes('changed since the summary') || !context.text.includes('Index of the'))
    throw new Error(`the memory lacks its files or index:\n${context.text.slice(0, 2000)}`);
  const payload = { session_id: 'bench', cwd: project, hook_event_name: 'SessionStart', source: 'startup', transcript_path: join(dir, 'none.jsonl') };
  const result = {
    targets: TARGETS,
    summaries: SUMMARIES,
    runs: RUNS,
    memoryChars: context.text.length,
    context: await time(() => ask('context', {})),
    sessionStart: await time(() => client.request('hook', { agent: 'claude', payload })),
  };
  if (args.includes('--json')) console.log(JSON.stringify(result));
  else {
    console.log(`memory hand-over, a job of ${SUMMARIES} summaries with files (target < ${TARGETS.handOverMs} ms), ${RUNS} runs`);
    console.log(`recap context: median ${result.context.medianMs} ms, p95 ${result.context.p95Ms} ms (${result.memoryChars} characters)`);
    console.log(`Claude Code SessionStart (fit to 10,000 characters): median ${result.sessionStart.medianMs} ms, p95 ${result.sessionStart.p95Ms} ms`);
  }
} finally {
  client.close();
  await stopDaemon(daemon);
  rmSync(dir, { recursive: true, force: true });
}
