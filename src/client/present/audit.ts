// The audit commands' output as people read it: a line of `recap log`, one event whole, the
// jobs table, a past moment of `recap replay`, the verdict of `recap verify`.
import type { EventLine } from '../../protocol/answers.js';
import type { JobRow } from '../../protocol/answers.js';
import type { ResponseOf } from '../../protocol/protocol.js';
import { write } from '../stdout.js';
import { localIso, localTime } from '../time.js';
import { eventGist } from './gist.js';
import { counted } from './counted.js';

/** A field of an event's data; undefined when it has none (or no data). */
export function fieldOf(data: unknown, key: string): unknown {
  return typeof data === 'object' && data !== null ? Reflect.get(data, key) : undefined;
}

/** One line of `recap log`: local time with its offset, sequence, job, type, gist. */
export const logLine = (l: EventLine): string => `${localIso(l.time)}  #${l.seq}  ${String(fieldOf(l.data, 'job') ?? '-')}  ${l.type}  ${eventGist(l.type, l.data)}`;

/** `recap event N`: the event's fields one a line, long texts (a prompt, a summary) whole below. */
export function printEvent(line: EventLine): void {
  write(1, `event #${line.seq}: ${line.type} (version ${line.version})\n`);
  write(1, `time: ${localIso(line.time)}\n`);
  const blocks: [string, string][] = [];
  for (const [key, value] of typeof line.data === 'object' && line.data !== null ? Object.entries(line.data) : []) {
    if (key === 'time') continue;
    if (typeof value === 'string' && (value.includes('\n') || key === 'text')) blocks.push([key, value]);
    else write(1, `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
  }
  for (const [key, value] of blocks) write(1, `${key}:\n${value.endsWith('\n') ? value : `${value}\n`}`);
}

export function printJobs(jobs: JobRow[]): void {
  if (jobs.length === 0) return void write(1, 'no jobs yet: recap counts a job from its first event\n');
  const head = ['job', 'repository', 'gate', 'unsummarized', 'summaries', 'last activity', 'agents'];
  const rows = jobs.map((j) => [
    j.job,
    j.repo !== undefined ? repositoryName(j.repo) : '-',
    j.tripped ? `TRIPPED (${j.reason ?? 'threshold'})` : 'open',
    `${j.unsummarizedTokens} tokens`,
    String(j.summaries),
    j.lastActivity === null ? '-' : localTime(j.lastActivity),
    j.agents.length > 0 ? j.agents.join(', ') : '-',
  ]);
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  for (const row of [head, ...rows]) write(1, `${row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c]!))).join('  ')}\n`);
  const withFolders = jobs.filter((j) => j.folders !== undefined && j.folders.length > 0);
  if (withFolders.length > 0) write(1, '\nfolders of each repository:\n');
  for (const j of withFolders) write(1, `${j.job}: ${j.folders!.join(', ')}\n`);
}

/** A repository as `recap jobs` names it: its name @ its root commit's first 12, and the project's folder in it. */
export const repositoryName = (repo: { name: string; root: string; sub: string }): string => `${repo.name} @ ${repo.root.slice(0, 12)}${repo.sub !== '' ? ` ${repo.sub}` : ''}`;

/** `recap replay`: each job's gate and counts at the moment asked for (`atTime`, when a time was). */
export function printReplay(result: ResponseOf<'replay'>, atTime: number | undefined): void {
  write(1, `at #${result.seq}${atTime !== undefined ? ` (${localTime(atTime)})` : ''}\n`);
  if (result.jobs.length === 0) write(1, 'no job had any event yet\n');
  for (const j of result.jobs) {
    write(1, `job ${j.job}: gate ${j.tripped ? `TRIPPED since ${localIso(j.since)}: ${j.cause}` : 'open'}\n`);
    write(
      1,
      `  unsummarized: ${counted(j.unsummarizedTokens, 'token')}, ${counted(j.unsummarizedInteractions, 'interaction')}; ${counted(j.summaries, 'summary', 'summaries')}; ${counted(j.denials, 'tool call')} denied; ${counted(j.rejections, 'summary', 'summaries')} rejected\n`,
    );
  }
}

/** `recap verify`: intact, or each problem on stderr; `job` when one was verified. */
export function printVerified(result: ResponseOf<'verify'>, job: string | undefined): void {
  const edits = () => {
    for (const r of result.redactions ?? []) {
      write(
        1,
        `redacted: ${r.what} #${r.seq} of job ${r.job}, on ${localTime(r.time)} (#${r.at})${r.reason !== undefined ? `, reason: ${r.reason}` : ''}; its hash is checked by the link to it, not its content\n`,
      );
    }
    if ((result.amendments ?? 0) > 0) write(1, `amended: ${result.amendments} amendments, each checked against its hash and the entry it amends\n`);
    if ((result.imported ?? 0) > 0) {
      write(1, `imported: ${result.imported} entries of other machines' chains, each checked against its hash and its link on its own machine's chain\n`);
    }
  };
  if (result.ok) {
    write(
      1,
      `intact: ${counted(result.events, 'event')}, ${counted(result.summaries, 'summary', 'summaries')} in ${job !== undefined ? `job ${job}` : counted(result.jobs, 'job')}\n`,
    );
    return edits();
  }
  edits();
  write(1, `BROKEN: ${counted(result.problems.length, 'problem')} in ${counted(result.events, 'event')}\n`);
  for (const p of result.problems) write(2, `${p.job ? `job ${p.job}, ` : ''}${p.seq !== undefined ? `#${p.seq}: ` : ''}${p.what}\n`);
}
