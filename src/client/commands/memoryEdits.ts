// The user's edits of a job's memory: `recap amend N` (a corrected text for summary #N) and
// `recap redact N` (remove the text of summary or interaction #N, from the log too). Both are
// the user's commands: refused in an agent's shell here (cli.ts) and by the daemon.
import { createInterface } from 'node:readline/promises';
import { readInput } from '../input.js';
import { call, output, target, UsageError, type Builder } from '../jobCommands.js';
import { documented } from './docs.js';
import { counted } from '../present/counted.js';

const EXIT_REJECTED = 2;

/** N or #N, as recap chain, recap log and the memory's index name an entry. */
function entryNumber(command: string, text: string): number {
  if (!/^#?\d{1,15}$/.test(text) || Number(text.replace('#', '')) < 1) {
    throw new UsageError(`recap ${command} takes an entry's number such as 12 or #12 (recap chain and recap log list them), not ${JSON.stringify(text)}`);
  }
  return Number(text.replace('#', ''));
}

/** Whether the user confirms on the terminal that the redaction may go ahead; without one, --yes is needed. */
async function confirmed(seq: number, argv: { yes: boolean }): Promise<boolean> {
  if (argv.yes) return true;
  if (!process.stdin.isTTY) {
    throw new UsageError(`recap redact cannot be undone and stdin is not a terminal to confirm it on; run it again with --yes to redact #${seq}`);
  }
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await terminal.question(`Redact the text of #${seq} from everything recap shows and from its log? This cannot be undone. [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    terminal.close();
  }
}

export const memoryEditCommands: Builder = (y) =>
  y
    .command(
      'amend <seq>',
      'correct summary #N: your text supersedes it',
      (a) =>
        documented(a, 'amend')
          .positional('seq', { type: 'string', demandOption: true, describe: "the summary's number (N or #N), as recap chain lists it" })
          .option('file', { type: 'string', alias: 'f', describe: 'read the corrected text from this file (- for stdin)' }),
      async (argv) => {
        const seq = entryNumber('amend', argv.seq);
        const text = await readInput(argv.file, 'corrected summary');
        const result = await call('amend', { ...target(argv), seq, text });
        output(argv, result, () => {
          if (result.amended) process.stdout.write(`summary #${result.entry} amended by #${result.seq} (${counted(result.tokens, 'token')}): ${result.gist}\n`);
        });
        if (!result.amended) {
          process.stderr.write(`${result.problems.join('\n')}\n`);
          process.exitCode = EXIT_REJECTED;
        }
      },
    )
    .command(
      'redact <seq>',
      'remove the text of #N everywhere, log included',
      (a) =>
        documented(a, 'redact')
          .positional('seq', { type: 'string', demandOption: true, describe: "the summary's or interaction's number (N or #N)" })
          .option('reason', { type: 'string', describe: 'why, in your words; recap verify shows it' })
          .option('yes', { type: 'boolean', default: false, describe: 'do not ask: needed when stdin is not a terminal' }),
      async (argv) => {
        const seq = entryNumber('redact', argv.seq);
        if (!(await confirmed(seq, argv))) {
          process.stdout.write('nothing redacted\n');
          return;
        }
        const result = await call('redact', { ...target(argv), seq, ...(argv.reason !== undefined ? { reason: argv.reason } : {}) });
        output(argv, result, () => {
          if (result.already) process.stdout.write(`the text of ${result.what} #${seq} was redacted already; nothing changed\n`);
          else {
            const with_ = result.amendments.length > 0 ? ` with its ${result.amendments.length} amendments (${result.amendments.map((n) => `#${n}`).join(', ')})` : '';
            process.stdout.write(`the text of ${result.what} #${seq}${with_} is redacted: gone from the log's files; recap verify names it\n`);
          }
        });
      },
    );
