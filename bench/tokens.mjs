#!/usr/bin/env node
// Benchmark: exact token counting. recap's counter (o200k_base through gpt-tokenizer, with
// special-token text taken as ordinary text and long runs cut) against the library's own
// countTokens on the same text, interleaved in this process so that the ratio holds on a
// busy machine; and the words x 1.3 estimate's error against the exact counts. Beside them,
// what loading the vocabulary takes in a fresh Node (the daemon loads it once it is ready, and
// requests wait for it meanwhile), against gpt-tokenizer's own encoder loaded and used once.
//   node bench/tokens.mjs [--quick] [--json]
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { code, documents } from './corpus.mjs';
import { ROOT as root } from './daemon.mjs';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const TARGETS = { ratio: 0.8, loadMs: 100 };

// One load in this fresh Node: recap's counter (the vocabulary read into its tables), or the library's encoder.
const loading = args.find((a) => a.startsWith('--load='))?.slice('--load='.length);
if (loading !== undefined) {
  const started = performance.now();
  if (loading === 'recap') await (await import(join(root, 'dist', 'common', 'tokenCounter.js'))).tokenCounter({ TOKEN_ENCODING: 'o200k_base', TOKEN_WORD_RATIO: 1.3 });
  else (await import('gpt-tokenizer/encoding/o200k_base')).countTokens('a');
  console.log(performance.now() - started);
  process.exit(0);
}
const loads = { recap: [], library: [] };
for (let i = 0; i < (quick ? 3 : 9); i += 1) {
  for (const side of i % 2 === 0 ? ['recap', 'library'] : ['library', 'recap']) {
    const run = spawnSync(process.execPath, [import.meta.filename, `--load=${side}`], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`loading the vocabulary failed: ${run.stderr}`);
    loads[side].push(Number(run.stdout));
  }
}
const medianOf = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const { tokenCounter } = await import(join(root, 'dist', 'common', 'tokenCounter.js'));
const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
const round = (n, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

const recap = await tokenCounter({ TOKEN_ENCODING: 'o200k_base', TOKEN_WORD_RATIO: 1.3 });
const estimate = await tokenCounter({ TOKEN_ENCODING: 'words', TOKEN_WORD_RATIO: 1.3 });
const library = (text) => countTokens(text);

const samples = {
  prose: documents(root).replace(/```[\s\S]*?```/g, ''),
  code: code(root),
  json: JSON.stringify(JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages, null, 2).slice(0, 400_000),
};

/** Seconds one count of `text` takes. */
function timed(count, text) {
  const start = process.hrtime.bigint();
  const tokens = count(text);
  return { seconds: Number(process.hrtime.bigint() - start) / 1e9, tokens };
}

const results = {};
for (const [kind, text] of Object.entries(samples)) {
  // Both warmed up first, unmeasured: the library's caches fill on the first pass over a
  // text, and V8 optimizes each side's code over the first few.
  for (let i = 0; i < 3; i += 1) {
    timed(recap, text);
    timed(library, text);
  }
  const rounds = quick ? 4 : 12;
  let recapSeconds = 0;
  let librarySeconds = 0;
  let recapTokens = 0;
  let libraryTokens = 0;
  const ratios = [];
  // Interleaved, the order swapped each round: what one side gains from the other's warm
  // caches or loses to a busy moment, the other does too.
  for (let i = 0; i < rounds; i += 1) {
    const [first, second] = i % 2 === 0 ? [recap, library] : [library, recap];
    const a = timed(first, text);
    const b = timed(second, text);
    const [r, l] = first === recap ? [a, b] : [b, a];
    recapSeconds += r.seconds;
    librarySeconds += l.seconds;
    ratios.push(l.seconds / r.seconds);
    recapTokens = r.tokens;
    libraryTokens = l.tokens;
  }
  const megabytes = (Buffer.byteLength(text) * rounds) / 1e6;
  const estimated = estimate(text);
  results[kind] = {
    recapMbPerSecond: round(megabytes / recapSeconds),
    libraryMbPerSecond: round(megabytes / librarySeconds),
    // The median of the rounds' ratios: a round that another process slowed counts once.
    ratio: round(ratios.sort((a, b) => a - b)[Math.floor(ratios.length / 2)], 3),
    exactTokens: recapTokens,
    libraryTokens,
    wordsEstimate: estimated,
    estimateErrorPercent: round(((estimated - recapTokens) / recapTokens) * 100, 1),
  };
}

const load = { recapMs: round(medianOf(loads.recap), 1), libraryMs: round(medianOf(loads.library), 1) };
if (args.includes('--json')) console.log(JSON.stringify({ targets: TARGETS, results, load }));
else {
  console.log(`o200k_base vocabulary loaded in a fresh Node: recap ${load.recapMs} ms (target < ${TARGETS.loadMs} ms), gpt-tokenizer's encoder ${load.libraryMs} ms`);
  console.log(`exact o200k_base counting, recap's counter against gpt-tokenizer's countTokens on the same text (target >= ${TARGETS.ratio}x)`);
  for (const [kind, t] of Object.entries(results)) {
    console.log(
      `${kind.padEnd(6)} recap ${t.recapMbPerSecond} MB/s, library ${t.libraryMbPerSecond} MB/s: ${t.ratio}x; ${t.exactTokens} tokens (library ${t.libraryTokens}); words x 1.3 estimate off by ${t.estimateErrorPercent}% (${t.wordsEstimate})`,
    );
  }
}
