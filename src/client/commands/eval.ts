// recap eval: the summary rules scored on a labelled corpus, or replayed on the windows of a
// recorded log (--log), in this process (no daemon): each judged as the daemon judges a
// submission, with the token counting the daemon uses (src/events/evaluation.ts,
// evalWindows.ts). --probes asks the user's own model how much of each window the memory kept.
import type { EvalArgs } from '../evalRun.js';
import type { Builder } from '../jobCommands.js';
import { documented } from './docs.js';

export const evalCommand: Builder = (y) =>
  y.command(
    'eval',
    'score the summary rules on a corpus or an export',
    (a) =>
      documented(a, 'eval')
        .option('corpus', { type: 'string', describe: "a folder with genuine/ and junk/ cases (default: the tests')" })
        .option('log', { type: 'string', describe: 'a file `recap export` wrote: each accepted summary judged again with its window, and the memory after it' })
        .option('probes', {
          type: 'boolean',
          default: false,
          describe:
            'ask the model set in your config (EVAL_MODEL_URL, EVAL_MODEL_KEY, EVAL_MODEL) questions of four kinds per window, answered from the summary and memory, judged against the window',
        })
        .option('out', {
          type: 'string',
          describe: "where --probes writes every question, answer and score (default: the log's path + .probes.json, or ./recap-eval-probes.json)",
        }),
    (argv) => import('../evalRun.js').then(({ evaluate }) => evaluate(argv as EvalArgs)),
  );
