// recap eval's work, loaded only when `recap eval` runs (the validator, the decider and the
// model client stay out of every other command's start-up): see commands/eval.ts.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../common/bins.js';
import { readEvalModel } from '../common/evalModelConfig.js';
import { userConfigPath } from '../common/paths.js';
import { DEFAULT_CONFIG } from '../events/config.js';
import { CaseError, LABELS, parseCase, type EvalCase, type Label } from '../events/evalCorpus.js';
import { judgeCase, score, type Verdict } from '../events/evaluation.js';
import { replayWindows, windowFigures } from '../events/evalWindows.js';
import { probeTotals, type ProbeWindow } from '../events/probes.js';
import { tokenCounter } from '../common/tokenCounter.js';
import { modelAsker } from './evalModel.js';
import { readExportFile } from './exportFile.js';
import { output, UsageError, type Global } from './jobCommands.js';
import { printEval } from './present/eval.js';
import { probesText, windowsText, type ProbesResult } from './present/evalProbes.js';
import { runProbes } from './probeRun.js';

/** The corpus a checkout of recap holds: its tests' genuine and junk summaries. */
export const DEFAULT_CORPUS = join(PACKAGE_ROOT, 'test', 'fixtures', 'summaries');

/** Where --probes writes its results when --out does not say, beside a corpus run's folder. */
const CORPUS_PROBES_FILE = 'recap-eval-probes.json';

export type EvalArgs = Global & { corpus?: string | undefined; log?: string | undefined; probes: boolean; out?: string | undefined };

/** Every case of the corpus folder: `genuine/*.md` and `junk/*.md`, by name. */
export function readCorpusFolder(folder: string): EvalCase[] {
  if (!LABELS.every((label) => existsSync(join(folder, label)))) {
    // recap's own corpus comes with its clone: an install made from a packed tarball has none.
    if (folder === DEFAULT_CORPUS) throw new UsageError(`recap's own corpus is not installed here (it comes with a clone of recap, in test/fixtures/summaries): pass --corpus DIR`);
    throw new UsageError(`${folder} is no corpus: it needs a genuine/ and a junk/ folder of cases (docs/cli.md#recap-eval describes them)`);
  }
  const read = (path: string, label: Label): EvalCase => {
    const file = join(folder, path);
    if (!existsSync(file)) throw new UsageError(`a window line names ${path}, which is not in ${folder}`);
    try {
      return parseCase(path, label, readFileSync(file, 'utf8'), (other) => read(other, other.startsWith('junk/') ? 'junk' : 'genuine'));
    } catch (error) {
      throw error instanceof CaseError ? new UsageError(`${folder}/${error.message}`) : error;
    }
  };
  return LABELS.flatMap((label) =>
    readdirSync(join(folder, label))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => read(`${label}/${f}`, label)),
  );
}

type Run = { result: Record<string, unknown>; print: () => void; windows: ProbeWindow[]; failed: boolean; out: string };

async function corpusRun(argv: EvalArgs): Promise<Run> {
  const folder = resolve(argv.corpus ?? DEFAULT_CORPUS);
  const cases = readCorpusFolder(folder);
  const count = await tokenCounter(DEFAULT_CONFIG);
  const now = Date.now();
  const verdicts: Verdict[] = cases.map((c) => judgeCase(c, count, now));
  const shown = verdicts.map(({ memory: _memory, ...v }) => v);
  const result = { corpus: folder, ...score(verdicts), verdicts: shown };
  const windows = cases.flatMap((c, i) => {
    const memory = verdicts[i]!.memory;
    if (c.label !== 'genuine' || memory === undefined) return [];
    return [{ name: c.name, interactions: c.interactions.map((text, k) => ({ seq: k + 1, kind: 'prompt', text, redacted: false })), calls: [], summary: c.summary, memory }];
  });
  // A misjudged case fails the run, as a regression check in CI would want.
  const failed = verdicts.some((v) => v.accepted !== (v.label === 'genuine'));
  return { result, print: () => printEval(result), windows, failed, out: resolve(CORPUS_PROBES_FILE) };
}

async function logRun(log: string): Promise<Run> {
  const file = resolve(log);
  const events = readExportFile(file);
  const count = await tokenCounter(DEFAULT_CONFIG);
  const replayed = replayWindows(events, count);
  // The texts stay out of the figures (the probes' file has what the model was asked); the sampled calls are one line each.
  const windows = replayed.map(({ memory: _m, interactions, summary: _s, ...w }) => ({ ...w, interactions: interactions.length }));
  const result = { log: file, figures: windowFigures(replayed), windows };
  const probeWindows = replayed
    .filter((w) => w.now !== 'redacted')
    .map((w) => ({ name: `${w.job}#${w.index}`, interactions: w.interactions, calls: w.calls, summary: w.summary, memory: w.memory }));
  // A summary accepted then and rejected now is a regression of the rules: the run fails.
  return {
    result,
    print: () => process.stdout.write(`${windowsText(result)}\n`),
    windows: probeWindows,
    failed: replayed.some((w) => w.now === 'rejected'),
    out: `${file}.probes.json`,
  };
}

/** The probes' scores, written to `out` (0600: they quote the windows). */
async function probe(windows: ProbeWindow[], out: string): Promise<ProbesResult | undefined> {
  const read = readEvalModel(userConfigPath(), process.env);
  if (!read.ok) {
    process.stderr.write(`recap: ${read.problem}\n`);
    process.exitCode = 2;
    return undefined;
  }
  const progress = process.stderr.isTTY ? (done: number) => process.stderr.write(`\rrecap: probed ${done} of ${windows.length} windows`) : undefined;
  const scored = await runProbes(windows, modelAsker(read.model), progress);
  if (progress) process.stderr.write('\n');
  const result: ProbesResult = { model: read.model.model, url: read.model.url, out, ...probeTotals(scored), windows: scored };
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`, { mode: 0o600 });
  return result;
}

export async function evaluate(argv: EvalArgs): Promise<void> {
  if (argv.log !== undefined && argv.corpus !== undefined) throw new UsageError('give --log FILE or --corpus DIR, not both');
  if (argv.out !== undefined && !argv.probes) throw new UsageError('--out names the file --probes writes its scores to; add --probes');
  const run = argv.log !== undefined ? await logRun(argv.log) : await corpusRun(argv);
  const probes = argv.probes ? await probe(run.windows, resolve(argv.out ?? run.out)) : undefined;
  if (argv.probes && probes === undefined) return;
  const result = probes ? { ...run.result, probes } : run.result;
  output(argv, result, () => {
    run.print();
    if (probes) process.stdout.write(`\n${probesText(probes)}\n`);
  });
  if (run.failed) process.exitCode = 2;
}
