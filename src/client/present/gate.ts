// A job's gate as people read it: `recap status`, what record, submit, trip, pause and
// resume print after their own line, the chain and one summary whole, the token report, a
// config change that waits.
import type { AgentRow, JobReport, PendingConfig } from '../../protocol/answers.js';
import type { ResponseOf, StatusAnswer } from '../../protocol/protocol.js';
import { shownSummary } from '../../protocol/shownSummary.js';
import { decisionLogText } from '../../protocol/decisionLogText.js';
import { localIso, localTime } from '../time.js';
import { originLabel } from '../../events/entryText.js';
import { counted } from './counted.js';

const write = (line: string) => process.stdout.write(`${line}\n`);

/** A value as config.conf spells it. */
export function spelled(value: unknown): string {
  if (value === undefined) return '(unset)';
  if (Array.isArray(value)) return `(${value.map((v) => JSON.stringify(v)).join(' ')})`;
  return String(value);
}

/** The lines `recap status` and `recap config show` print for a change that waits. */
export function pendingLines(pending: PendingConfig): string[] {
  return [
    `config change waits for approval: ${pending.file} would weaken the gate; the values in force stay until you approve it (its stricter values already apply):`,
    ...pending.held.map((h) => `  ${h.key}: in force ${spelled(h.from)}, the file asks for ${spelled(h.to)}`),
    ...(pending.neverApproved ? ['  (a project config file written before recap asked for approval needs it once)'] : []),
    `approve it yourself, in your own terminal (never through the agent): ${pending.command}`,
  ];
}

const NOTICE_ABOUT: Record<string, string> = { tripped: 'the gate tripped', accepted: 'a summary was accepted', config: 'a config change waits for your approval' };

export function printStatus(status: StatusAnswer): void {
  const gate = status.tripped ? `TRIPPED (${status.reason ?? 'threshold'}): submit a summary; recap context shows what to write` : 'open';
  write(`job ${status.job}: gate ${gate}`);
  write(`unsummarized: ${status.unsummarizedTokens} of ${status.threshold} tokens, ${counted(status.unsummarizedInteractions, 'interaction')}`);
  write(`summaries: ${status.summaries}`);
  if (status.pausedUntil) {
    const by = status.pausedBy ? `by you (process ${status.pausedBy.ancestry})` : 'by you';
    write(`paused ${by} until ${localIso(status.pausedUntil)}: nothing counts and the gate denies nothing (recap resume ends it)`);
  }
  if (status.lastNotice) write(`last notice to you in the agent: ${NOTICE_ABOUT[status.lastNotice.kind] ?? status.lastNotice.kind}, ${localIso(status.lastNotice.time)}`);
  for (const problem of status.configProblems ?? []) process.stderr.write(`config problem (the last good configuration is in force): ${problem}\n`);
  if (status.userConfigPending) for (const line of pendingLines(status.userConfigPending)) write(line);
  if (status.configPending) for (const line of pendingLines(status.configPending)) write(line);
}

export function printSubmit(result: ResponseOf<'submit'>): void {
  if (result.accepted) {
    const number = result.seq !== undefined ? `summary #${result.seq}, ` : '';
    write(`accepted: ${number}${result.entry.tokens} tokens, covering every interaction up to event #${result.entry.coversThrough}; hash ${result.entry.hash.slice(0, 12)}`);
    const secrets = result.entry.secrets ?? [];
    if (secrets.length > 0) write(`kept with ${secrets.map((s) => `${s.count} ${s.kind}`).join(', ')} replaced by a marker: recap stores no secret`);
    return;
  }
  write(`rejected: ${counted(result.problems.length, 'problem')} (listed on stderr)`);
}

export function printChain(result: ResponseOf<'chain'>): void {
  if (result.entries.length === 0) {
    write('no summaries yet');
    return;
  }
  // Each by its number, as recap show N and the memory's index name it.
  for (const e of result.entries) {
    const gist = e.gist !== undefined ? `  ${e.gist}` : '';
    // Another machine's entry: whose, in place of its machine's interaction numbers.
    const where = e.origin === undefined ? `through #${e.coversThrough}` : `[${originLabel(e.origin)}]`;
    write(`#${e.seq}  ${localTime(e.time)}  level ${e.level}  ${e.tokens} tokens  ${where}  ${e.hash.slice(0, 12)}${editMark(e)}${gist}`);
  }
}

/** How chain marks a summary the user amended (superseded by the amendment in force) or redacted. */
function editMark(e: ResponseOf<'chain'>['entries'][number]): string {
  if (e.amendment !== undefined) return `  [superseded by amendment #${e.amendment.seq}, ${localTime(e.amendment.time)}]`;
  return e.redaction !== undefined ? `  [redacted ${localTime(e.redaction.time)}]` : '';
}

/** `recap show N`: the summary whole (shownSummary.ts), its time in the local zone. */
export function printShown(result: ResponseOf<'show'>): void {
  write(shownSummary(result, localTime));
}

/** The decision log, each entry dated by the user's local day. */
export function printDecisions(result: ResponseOf<'decisions'>): void {
  write(decisionLogText(result, (ms) => localTime(ms).slice(0, 10)));
}

export function printReport(jobs: JobReport[]): void {
  if (jobs.length === 0) {
    write('nothing recorded yet');
    return;
  }
  const head = ['job', 'agent', 'interactions', 'tokens counted', 'summaries', 'rejections', 'denials', 'model input', 'output', 'cache write', 'cache read'];
  const rows = jobs.flatMap((j) =>
    j.agents.length === 0
      ? [[j.job, '-', '0', '0', String(j.summaries), String(j.rejections), '0', '0', '0', '0', '0']]
      : j.agents.map((a: AgentRow, i) => [
          j.job,
          a.agent,
          String(a.interactions),
          String(a.countedTokens),
          i === 0 ? String(j.summaries) : '',
          i === 0 ? String(j.rejections) : '',
          String(a.denials),
          String(a.input),
          String(a.output),
          String(a.cacheCreation),
          String(a.cacheRead),
        ]),
  );
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]) => cells.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ');
  write(line(head));
  for (const row of rows) write(line(row));
}
