#!/usr/bin/env node
// Benchmark: finding and replacing secrets in a text before recap stores it, as the daemon
// does for every prompt, Q&A and summary (secretlint's recommended rules, then the pure
// replacement): a typical 2 KB prompt and a 1 MB one, each holding a few secrets, medians.
// A tool call never pays it: only texts that are stored do.
//   node bench/secrets.mjs [--quick] [--json]
import { join } from 'node:path';
import { ROOT as root } from './daemon.mjs';

const { findSecrets } = await import(join(root, 'dist', 'daemon', 'secretScanner.js'));
const { replaceSecrets } = await import(join(root, 'dist', 'events', 'secrets.js'));
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const TARGETS = { promptMs: 5, megabyteMs: 250 };
const round = (n, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

// Shaped as real secrets are, made up, put together at run time.
const token = ['gh', 'p_', 'A1b2C3d4E5f6G7h8I9j0', 'K1l2M3n4O5p6Q7r8'].join('');
const access = ['AK', 'IA', 'QWERTYUIOP', 'ASDFGH'].join('');
const sentence = 'The refund flow in src/billing/refund.ts calls the ledger before it emails the customer, and the retry waits 30 seconds. ';
const prompt = `${sentence.repeat(16).slice(0, 1900)}\nuse ${token} and aws_access_key_id = ${access}\n`;
const megabyte = `${sentence.repeat(Math.ceil(1_000_000 / sentence.length))}\n${prompt}`;

async function timed(text, runs) {
  await findSecrets(text); // loads the rules, warms V8
  const ms = [];
  let secrets = 0;
  for (let i = 0; i < runs; i += 1) {
    const start = process.hrtime.bigint();
    const stored = replaceSecrets(text, await findSecrets(text));
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
    secrets = stored.secrets.reduce((n, s) => n + s.count, 0);
  }
  ms.sort((a, b) => a - b);
  return { bytes: Buffer.byteLength(text), secrets, medianMs: round(ms[Math.floor(ms.length / 2)]), p95Ms: round(ms[Math.min(ms.length - 1, Math.floor(ms.length * 0.95))]), runs };
}

const results = { prompt: await timed(prompt, quick ? 20 : 200), megabyte: await timed(megabyte, quick ? 3 : 15) };
if (args.includes('--json')) console.log(JSON.stringify({ targets: TARGETS, ...results }));
else {
  console.log(`secrets found and replaced (secretlint's recommended rules)`);
  console.log(`  2 KB prompt: median ${results.prompt.medianMs} ms, p95 ${results.prompt.p95Ms} ms (target < ${TARGETS.promptMs} ms)`);
  console.log(`  1 MB prompt: median ${results.megabyte.medianMs} ms, p95 ${results.megabyte.p95Ms} ms (target < ${TARGETS.megabyteMs} ms)`);
}
