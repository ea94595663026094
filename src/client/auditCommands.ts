// The audit commands: recap log, replay, verify, export and import.
import { closeSync, openSync, writeSync } from 'node:fs';
import type { Argv } from 'yargs';
import { UserError } from '../common/errors.js';
import { eventLogDir } from '../common/paths.js';
import { connectOrStart } from './autostart.js';
import { progress } from './progress.js';
import { BadTime, parseTime } from './time.js';

type Line = { seq: number; type: string; version: number; time: string | null; data: Record<string, unknown> };
type Page = { events: Line[]; next: number | null; lastSeq: number };
type Common = { json: boolean; job?: string | undefined };

const PAGE = 5000;

/** Every matching event, page by page: a million events never sit in memory at once. */
async function* allEvents(query: Record<string, unknown>, onPage?: (done: number) => void): AsyncGenerator<Line[]> {
  const client = await connectOrStart();
  try {
    let fromSeq: number | null = 1;
    while (fromSeq !== null) {
      const page: Page = await client.request<Page>('events', { ...query, fromSeq, limit: PAGE });
      yield page.events;
      onPage?.(page.next ?? page.lastSeq);
      fromSeq = page.next;
    }
  } finally {
    client.close();
  }
}

function time(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  try {
    return parseTime(text);
  } catch (error) {
    throw new UserError(`${flag}: ${(error as BadTime).message}`);
  }
}


function gist(line: Line): string {
  const d = line.data as Record<string, any>;
  switch (line.type) {
    case 'InteractionRecorded':
      return `${d.kind}, ${d.tokens} tokens: ${JSON.stringify(String(d.text).slice(0, 60))}${String(d.text).length > 60 ? '...' : ''}`;
    case 'GateTripped':
      return `${d.reason}: ${d.unsummarizedTokens} unsummarized, limit ${d.limit}`;
    case 'ToolDenied':
      return `${d.tool}${d.cause ? ` (${d.cause})` : ''}`;
    case 'SummaryRejected':
      return `${d.problems.length} problems: ${d.problems[0] ?? ''}`;
    case 'SummaryAccepted':
      return `level ${d.level}, ${d.tokens} tokens, through #${d.coversThrough}, ${String(d.hash).slice(0, 12)}`;
    case 'ConfigApplied':
      return `${d.job ? `job ${d.job}` : 'user'}: threshold ${d.values?.TOKEN_THRESHOLD}, band ${d.values?.SUMMARY_MIN_TOKENS}..${d.values?.SUMMARY_MAX_TOKENS}`;
    default:
      return '';
  }
}

const write = (fd: number, text: string) => writeSync(fd, text);

export function auditCommands(y: Argv<Common>): Argv<Common> {
  return y
    .command(
      'log',
      'the event timeline, oldest first (JSON Lines with --json)',
      (a) =>
        a
          .option('type', { type: 'string', array: true, describe: 'only these event types' })
          .option('since', { type: 'string', describe: 'from this time (ISO, HH:MM, or 10m/2h/3d ago)' })
          .option('until', { type: 'string', describe: 'up to this time' }),
      async (argv) => {
        const query = {
          ...(argv.job !== undefined ? { job: argv.job } : {}),
          ...(argv.type ? { types: argv.type } : {}),
          ...(argv.since !== undefined ? { since: time(argv.since, '--since') } : {}),
          ...(argv.until !== undefined ? { until: time(argv.until, '--until') } : {}),
        };
        for await (const page of allEvents(query)) {
          const text = page
            .map((l) => (argv.json ? JSON.stringify(l) : `${(l.time ?? '-').replace(/\.\d+Z$/, 'Z')}  #${l.seq}  ${String(l.data.job ?? '-')}  ${l.type}  ${gist(l)}`))
            .join('\n');
          if (text) write(1, `${text}\n`);
        }
      },
    )
    .command(
      'replay',
      'the gate and chain as they were at a moment: why was the agent blocked at 14:02?',
      (a) => a.option('at', { type: 'string', demandOption: true, describe: 'a sequence number (#N or N) or a time (ISO, HH:MM, 10m ago)' }),
      async (argv) => {
        const at = /^#?\d+$/.test(argv.at) ? { atSeq: Number(argv.at.replace('#', '')) } : { atTime: time(argv.at, '--at') };
        const shown = progress('replay');
        const client = await connectOrStart();
        try {
          const result = await client.request<{ seq: number; jobs: Record<string, any>[] }>(
            'replay',
            { ...at, ...(argv.job !== undefined ? { job: argv.job } : {}) },
            60_000,
            shown.update,
          );
          shown.done();
          if (argv.json) return void write(1, `${JSON.stringify(result, null, 2)}\n`);
          write(1, `at #${result.seq}${at.atTime !== undefined ? ` (${new Date(at.atTime).toISOString()})` : ''}\n`);
          if (result.jobs.length === 0) write(1, 'no job had any event yet\n');
          for (const j of result.jobs) {
            write(1, `job ${j.job}: gate ${j.tripped ? `TRIPPED since ${j.since}: ${j.cause}` : 'open'}\n`);
            write(1, `  unsummarized: ${j.unsummarizedTokens} tokens, ${j.unsummarizedInteractions} interactions; ${j.summaries} summaries; ${j.denials} tool calls denied; ${j.rejections} summaries rejected\n`);
          }
        } finally {
          client.close();
        }
      },
    )
    .command('verify', "recompute every summary's hash and link, and compare a full replay with the live state", (a) => a, async (argv) => {
      const shown = progress('verify');
      const client = await connectOrStart();
      try {
        const result = await client.request<{ ok: boolean; events: number; summaries: number; jobs: number; problems: { seq?: number; job?: string; what: string }[] }>(
          'verify',
          {},
          60_000,
          shown.update,
        );
        shown.done();
        if (argv.json) write(1, `${JSON.stringify(result, null, 2)}\n`);
        else if (result.ok) write(1, `intact: ${result.events} events, ${result.summaries} summaries in ${result.jobs} jobs\n`);
        else {
          write(1, `BROKEN: ${result.problems.length} problems in ${result.events} events\n`);
          for (const p of result.problems) write(2, `${p.job ? `job ${p.job}, ` : ''}${p.seq !== undefined ? `#${p.seq}: ` : ''}${p.what}\n`);
        }
        if (!result.ok) process.exitCode = 2;
      } finally {
        client.close();
      }
    })
    .command(
      'export',
      'every event as JSON Lines (see the README for the format)',
      (a) => a.option('out', { type: 'string', describe: 'write to this file instead of stdout' }),
      async (argv) => {
        const fd = argv.out !== undefined ? openSync(argv.out, 'w', 0o600) : 1;
        const shown = progress('export');
        try {
          const { exportHeader } = await import('../daemon/exportFormat.js');
          write(fd, `${exportHeader()}\n`);
          const query = { raw: true, ...(argv.job !== undefined ? { job: argv.job } : {}) };
          for await (const page of allEvents(query, shown.update)) {
            if (page.length > 0) write(fd, `${page.map((l) => JSON.stringify(l)).join('\n')}\n`);
          }
        } finally {
          shown.done();
          if (fd !== 1) closeSync(fd);
        }
      },
    )
    .command(
      'import <file>',
      'rebuild a log from an export, into an empty data folder (the daemon must be stopped)',
      (a) => a.positional('file', { type: 'string', demandOption: true }),
      async (argv) => {
        const { importLog } = await import('../daemon/importLog.js');
        const shown = progress('import');
        const count = await importLog(argv.file, eventLogDir(), shown.update);
        shown.done();
        write(1, argv.json ? `${JSON.stringify({ imported: count })}\n` : `imported ${count} events into ${eventLogDir()}\n`);
      },
    );
}
