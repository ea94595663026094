// recap eval: the summary rules scored on a labelled corpus, in this process (no daemon):
// each case read from its file, judged as the daemon judges a submission, with the token
// counting the daemon uses (src/events/evaluation.ts).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../../common/bins.js';
import { DEFAULT_CONFIG } from '../../events/config.js';
import { CaseError, LABELS, parseCase, type EvalCase, type Label } from '../../events/evalCorpus.js';
import { judgeCase, score, type Verdict } from '../../events/evaluation.js';
import { tokenCounter } from '../../events/tokens.js';
import { output, UsageError, type Builder, type Global } from '../jobCommands.js';
import { printEval } from '../present/eval.js';
import { documented } from './docs.js';

/** The corpus a checkout of recap holds: its tests' genuine and junk summaries. */
export const DEFAULT_CORPUS = join(PACKAGE_ROOT, 'test', 'fixtures', 'summaries');

type EvalArgs = Global & { corpus?: string | undefined };

/** Every case of the corpus folder: `genuine/*.md` and `junk/*.md`, by name. */
export function readCorpusFolder(folder: string): EvalCase[] {
  if (!LABELS.every((label) => existsSync(join(folder, label)))) {
    throw new UsageError(`${folder} is no corpus: it needs a genuine/ and a junk/ folder of cases (docs/cli.md#recap-eval describes them); pass --corpus DIR`);
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

async function evaluate(argv: EvalArgs): Promise<void> {
  const folder = resolve(argv.corpus ?? DEFAULT_CORPUS);
  const cases = readCorpusFolder(folder);
  const count = await tokenCounter(DEFAULT_CONFIG);
  const now = Date.now();
  const verdicts: Verdict[] = cases.map((c) => judgeCase(c, count, now));
  const result = { corpus: folder, ...score(verdicts), verdicts };
  output(argv, result, () => printEval(result));
  // A misjudged case fails the run, as a regression check in CI would want.
  if (verdicts.some((v) => v.accepted !== (v.label === 'genuine'))) process.exitCode = 2;
}

export const evalCommand: Builder = (y) =>
  y.command(
    'eval',
    'score the summary rules on a labelled corpus',
    (a) => documented(a, 'eval').option('corpus', { type: 'string', describe: "a folder with genuine/ and junk/ cases (default: the tests')" }),
    (argv) => evaluate(argv as EvalArgs),
  );
