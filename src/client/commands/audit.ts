// The audit commands: recap log (and log -f), event, jobs, replay, verify, export and import.
import { closeSync, fstatSync, openSync, renameSync, rmSync } from 'node:fs';
import { UserError } from '../../common/errors.js';
import { eventLogDir } from '../../common/paths.js';
import { nearNames } from '../../common/nearNames.js';
import { EVENT_TYPES } from '../../events/events.js';
import type { EventLine } from '../../protocol/answers.js';
import type { JobRow } from '../../protocol/answers.js';
import { connectOrStart } from '../autostart.js';
import type { DaemonSide } from '../daemonSide.js';
import { eventPages, PAGE_TIMEOUT_MS, type EventQuery } from '../eventPages.js';
import { ask, jobOf, output, replay, UsageError, verify, type Builder } from '../jobCommands.js';
import { counted } from '../present/counted.js';
import { fieldOf, logLine, printEvent, printJobs } from '../present/audit.js';
import { progress } from '../progress.js';
import { write, writeAll } from '../stdout.js';
import { timeFlag, TIME_HINT } from '../time.js';
import { documented } from './docs.js';

/** How long the daemon holds a `recap log -f` page that finds nothing new, and the events per page. */
const FOLLOW_WAIT_MS = 10_000;
const FOLLOW_PAGE = 500;

/**
 * `recap log -f`: every matching event, then each new one as it is stored. The daemon holds
 * a page that finds nothing new until an event comes (or FOLLOW_WAIT_MS pass), so the
 * client never polls on a timer; it ends with the daemon or Ctrl-C.
 */
async function follow(query: EventQuery, print: (events: EventLine[]) => void): Promise<void> {
  const client = await connectOrStart();
  try {
    for (let from = 1; ;) {
      const page = await client.request('events', { ...query, fromSeq: from, limit: FOLLOW_PAGE, wait: FOLLOW_WAIT_MS }, FOLLOW_WAIT_MS + PAGE_TIMEOUT_MS);
      print(page.events);
      if (page.next === null) return;
      from = page.next;
    }
  } finally {
    client.close();
  }
}

const SORTS = {
  activity: (a: JobRow, b: JobRow) => (b.lastActivity ?? 0) - (a.lastActivity ?? 0),
  name: (a: JobRow, b: JobRow) => a.job.localeCompare(b.job),
  tokens: (a: JobRow, b: JobRow) => b.unsummarizedTokens - a.unsummarizedTokens,
  summaries: (a: JobRow, b: JobRow) => b.summaries - a.summaries,
} as const;

/** recap log, event and jobs: the timeline, one event, the jobs. */
export const readCommands: Builder = (y) =>
  y
    .command(
      'log',
      'the event timeline, oldest first; -f follows it',
      (a) =>
        documented(a, 'log')
          .option('type', { type: 'string', array: true, choices: EVENT_TYPES, describe: 'only these event types' })
          .option('since', { type: 'string', describe: `from this time ${TIME_HINT}` })
          .option('until', { type: 'string', describe: 'up to this time' })
          .option('follow', { type: 'boolean', alias: 'f', default: false, describe: 'then print new events as they come' }),
      async (argv) => {
        const query: EventQuery = {
          ...jobOf(argv),
          ...(argv.type ? { types: argv.type } : {}),
          ...(argv.since !== undefined ? { since: timeFlag(argv.since, '--since', argv.json) } : {}),
          ...(argv.until !== undefined ? { until: timeFlag(argv.until, '--until', argv.json) } : {}),
        };
        if (query.since !== undefined && query.until !== undefined && query.since > query.until) {
          throw new UsageError(`--since ${argv.since} is after --until ${argv.until}: no event can be both; give the earlier time to --since`);
        }
        if (argv.follow) {
          return follow(query, (events) => {
            const text = events.map((l) => (argv.json ? JSON.stringify(l) : logLine(l))).join('\n');
            if (text) write(1, `${text}\n`);
          });
        }
        for await (const page of eventPages(query)) {
          if (argv.json) {
            writeAll(1, page.lines());
            continue;
          }
          const text = page.events().map(logLine).join('\n');
          if (text) write(1, `${text}\n`);
        }
      },
    )
    .command(
      'event <seq>',
      'one event whole, of any job and type',
      (a) => documented(a, 'event').positional('seq', { type: 'string', demandOption: true, describe: 'the sequence number (#N or N), as recap log shows it' }),
      async (argv) => {
        if (!/^#?\d+$/.test(argv.seq) || Number(argv.seq.replace('#', '')) < 1)
          throw new UserError(`recap event takes a sequence number such as 12 or #12, not ${JSON.stringify(argv.seq)}`);
        const seq = Number(argv.seq.replace('#', ''));
        const page = await ask('events', { fromSeq: Math.min(seq, Number.MAX_SAFE_INTEGER), limit: 1 });
        const line = page.events[0];
        if (line?.seq !== seq) throw new UserError(`there is no event #${seq}: the log holds events #1 to #${page.lastSeq}`);
        const { job } = jobOf(argv);
        const its = fieldOf(line.data, 'job');
        if (job !== undefined && its !== job) throw new UserError(`event #${seq} is not of job ${job} (it is of ${String(its ?? 'no job')})`);
        if (argv.json) write(1, `${JSON.stringify(line, null, 2)}\n`);
        else printEvent(line);
      },
    )
    .command(
      'jobs',
      'every job: gate, tokens, summaries, activity, agents',
      (a) =>
        documented(a, 'jobs').option('sort', { choices: Object.keys(SORTS) as (keyof typeof SORTS)[], default: 'activity' as const, describe: 'order (activity: newest first)' }),
      async (argv) => {
        const all = (await ask('jobs', {})).jobs;
        const { job } = jobOf(argv);
        // With --job, that job's row alone (as every command reads --job).
        const jobs = job === undefined ? all : all.filter((j) => j.job === job);
        if (job !== undefined && jobs.length === 0) {
          const near = nearNames(
            job,
            all.map((j) => j.job),
          );
          throw new UserError(`job ${JSON.stringify(job)} has no events${near.length > 0 ? `; jobs with near names: ${near.join(', ')}` : ''}`);
        }
        jobs.sort(SORTS[argv.sort]);
        if (argv.json) {
          const utc = jobs.map((j) => ({ ...j, lastActivity: j.lastActivity === null ? null : new Date(j.lastActivity).toISOString() }));
          write(1, `${JSON.stringify({ jobs: utc }, null, 2)}\n`);
        } else printJobs(jobs);
      },
    );

/** recap replay and verify: the log read again from its start. */
export const checkCommands: Builder = (y) =>
  y
    .command(
      'replay',
      'the gates and chains as they were at a moment',
      (a) => documented(a, 'replay').option('at', { type: 'string', demandOption: true, describe: 'a sequence number (#N or N) or a time (ISO, HH:MM, 10m ago)' }),
      (argv) => replay(argv),
    )
    .command(
      'verify',
      'check every hash and link, and a full replay',
      (a) => documented(a, 'verify'),
      (argv) => verify(argv),
    );

/** The file `recap export --out` writes (`path`, renamed to `file` once whole), opened 0600: the log holds the prompts; a path it cannot write says so. */
function openOut(path: string, file: string): number {
  try {
    return openSync(path, 'w', 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(`cannot write ${file} (${code}): give --out a file in a folder that exists and that you may write`);
  }
}

/** The lines in a page of JSON Lines: each ends with a newline. */
function lineCount(lines: Buffer): number {
  let count = 0;
  for (let at = lines.indexOf(10); at >= 0; at = lines.indexOf(10, at + 1)) count += 1;
  return count;
}

/** Refuses, before the daemon's code is loaded, an import file that cannot be read: missing, a folder, or not yours to read. */
function refuseUnreadable(file: string): void {
  let fd: number | undefined;
  let problem: string | undefined;
  try {
    fd = openSync(file, 'r');
    if (fstatSync(fd).isDirectory()) problem = 'a folder';
  } catch (error) {
    problem = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (problem !== undefined) throw new UsageError(`cannot read ${file} (${problem}): give the path of a file recap export wrote`);
}

/** recap export and import: the log as JSON Lines, and back (`side` makes the export's lines and holds the offline import). */
export const exportCommands =
  (side: DaemonSide): Builder =>
  (y) =>
    y
      .command(
        'export',
        'every event as JSON Lines (see docs/audit.md)',
        (a) => documented(a, 'export').option('out', { type: 'string', describe: 'write to this file instead of stdout' }),
        async (argv) => {
          // A file is written beside its name and renamed once whole: an export that fails
          // leaves no file that looks like one.
          const partial = argv.out !== undefined ? `${argv.out}.partial` : undefined;
          const fd = partial !== undefined ? openOut(partial, argv.out!) : 1;
          const shown = progress('export');
          let whole = false;
          let events = 0;
          try {
            const { exportEnd, exportHeader } = await import('../../protocol/exportFormat.js');
            // The daemon sends the events as stored; their lines are made here, on the CLI's own core
            // (a daemon older than this CLI sends the lines).
            const linesOf = await side.exportLines();
            const { job } = jobOf(argv);
            write(fd, `${exportHeader(job)}\n`);
            for await (const page of eventPages({ raw: true, stored: true, ...jobOf(argv) }, shown.update)) {
              const lines = page.stored ? linesOf(page.lines()) : page.lines();
              events += lineCount(lines);
              writeAll(fd, lines);
            }
            write(fd, `${exportEnd(events)}\n`);
            whole = true;
          } finally {
            shown.done();
            if (fd !== 1) closeSync(fd);
            if (partial !== undefined) {
              if (whole) renameSync(partial, argv.out!);
              else rmSync(partial, { force: true });
            }
          }
          // Written to a file, the export says what it wrote where the events would have gone.
          if (argv.out !== undefined) output(argv, { out: argv.out, events }, () => process.stdout.write(`wrote ${counted(events, 'event')} to ${argv.out}\n`));
        },
      )
      .command(
        'import <file>',
        'rebuild a log from an export (daemon stopped)',
        // No job: --job is left out of its --help (and refused, see JOBLESS_COMMANDS in cli.ts).
        (a) => documented(a, 'import').hide('job').positional('file', { type: 'string', demandOption: true }),
        async (argv) => {
          refuseUnreadable(argv.file);
          const shown = progress('import');
          const count = await side.importLog(argv.file, eventLogDir(), shown.update);
          shown.done();
          write(1, argv.json ? `${JSON.stringify({ imported: count })}\n` : `imported ${count} events into ${eventLogDir()}\n`);
        },
      );
