// recap search and timeline: the job's summaries found by their words, and shown around an
// entry or a moment, as index lines (recap show N reads one whole).
import { call, output, target, UsageError, type Builder, type Global } from '../jobCommands.js';
import { printHits, printTimeline } from '../present/search.js';
import { timeFlag, TIME_HINT } from '../time.js';
import { documented } from './docs.js';
import { givenValue } from '../present/counted.js';

const SEQ = /^#?\d{1,15}$/;

type SearchArgs = Global & { query: string[]; allJobs?: boolean | undefined; topic?: string | undefined; since?: string | undefined; limit?: number | undefined };
type TimelineArgs = Global & { seq?: string | undefined; at?: string | undefined; before?: number | undefined; after?: number | undefined };

async function search(argv: SearchArgs): Promise<void> {
  const query = argv.query.join(' ');
  if (argv.limit !== undefined && (!Number.isInteger(argv.limit) || argv.limit < 1 || argv.limit > 100)) throw new UsageError('--limit takes a whole number from 1 to 100');
  const result = await call('search', {
    ...target(argv),
    query,
    ...(argv.allJobs ? { allJobs: true } : {}),
    ...(argv.topic !== undefined ? { topic: argv.topic } : {}),
    ...(argv.since !== undefined ? { since: timeFlag(argv.since, '--since', argv.json) } : {}),
    ...(argv.limit !== undefined ? { limit: argv.limit } : {}),
  });
  output(argv, result, () => printHits(result, query, argv.allJobs === true));
}

async function timeline(argv: TimelineArgs): Promise<void> {
  if (argv.seq !== undefined && (!SEQ.test(argv.seq) || Number(argv.seq.replace('#', '')) < 1)) {
    throw new UsageError(`recap timeline takes a summary's number such as 12 or #12 (recap chain lists them), not ${givenValue(argv.seq)}`);
  }
  for (const [flag, value] of [
    ['--before', argv.before],
    ['--after', argv.after],
  ] as const) {
    if (value !== undefined && (!Number.isInteger(value) || value < 0 || value > 50)) throw new UsageError(`${flag} takes a whole number from 0 to 50`);
  }
  const result = await call('timeline', {
    ...target(argv),
    ...(argv.seq !== undefined ? { seq: Number(argv.seq.replace('#', '')) } : {}),
    ...(argv.at !== undefined ? { time: timeFlag(argv.at, '--at', argv.json) } : {}),
    ...(argv.before !== undefined ? { before: argv.before } : {}),
    ...(argv.after !== undefined ? { after: argv.after } : {}),
  });
  output(argv, result, () => printTimeline(result));
}

export const searchCommands: Builder = (y) =>
  y
    .command(
      'search <query..>',
      'find summaries by their words, best first',
      (a) =>
        documented(a, 'search')
          .positional('query', { type: 'string', array: true, demandOption: true, describe: 'the words to look for (quote several as one)' })
          .option('all-jobs', { type: 'boolean', describe: "search every job's summaries" })
          .option('topic', { type: 'string', describe: "only this topic's summaries" })
          .option('since', { type: 'string', describe: `only summaries from this time on ${TIME_HINT}` })
          .option('limit', { type: 'number', describe: 'at most this many hits (1-100, default 10)' })
          .conflicts('all-jobs', 'job'),
      (argv) => search(argv as SearchArgs),
    )
    .command(
      'timeline [seq]',
      'the summaries around #N, a moment (--at), or now',
      (a) =>
        documented(a, 'timeline')
          .positional('seq', { type: 'string', describe: "the summary's number (N or #N) to centre on" })
          .option('at', { type: 'string', describe: `centre on this time ${TIME_HINT}` })
          .option('before', { type: 'number', describe: 'entries before it (0-50, default 3)' })
          .option('after', { type: 'number', describe: 'entries after it (0-50, default 3)' })
          .conflicts('at', 'seq'),
      (argv) => timeline(argv as TimelineArgs),
    );
