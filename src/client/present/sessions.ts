// `recap report --session S`: one session's tokens per model and per agent, its tool calls and
// denials, its start and end; and the one-line-per-session list below `recap report`.
import type { SessionReport } from '../../protocol/answers.js';
import { localTime } from '../time.js';

const write = (line: string) => process.stdout.write(`${line}\n`);

/** Columns, numbers right-aligned: the first `left` columns are text. */
function table(head: string[], rows: string[][], left: number): void {
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]) => cells.map((cell, c) => (c < left ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ');
  write(line(head));
  for (const row of rows) write(line(row));
}

const tokens = (r: { input: number; output: number; cacheCreation: number; cacheRead: number }) => [
  String(r.input),
  String(r.output),
  String(r.cacheCreation),
  String(r.cacheRead),
];
const TOKEN_HEAD = ['input', 'output', 'cache write', 'cache read'];

function state(r: SessionReport): string {
  if (r.ended === undefined) return `open (last activity ${localTime(r.last)})`;
  return `ended ${localTime(r.ended.time)}${r.ended.reason !== undefined ? ` (${r.ended.reason})` : ''}`;
}

export function printSessionReport(r: SessionReport): void {
  write(`session ${r.session}${r.from !== undefined ? ` (${r.from})` : ''}, job ${r.job}`);
  write(`started ${localTime(r.started)}, ${state(r)}`);
  write(`${r.interactions} interactions (${r.countedTokens} tokens counted), ${r.toolCalls} tool calls, ${r.denials} denied`);
  write('');
  if (r.byModel.length === 0) {
    write('no model usage recorded (the agent gives recap no transcript, or none was read yet)');
    return;
  }
  table(['model', ...TOKEN_HEAD], [...r.byModel.map((m) => [m.model, ...tokens(m)]), ['all', ...tokens(r)]], 1);
  write('');
  table(
    ['agent', ...TOKEN_HEAD],
    r.byAgent.map((a) => [a.agent, ...tokens(a)]),
    1,
  );
}

/** The sessions below the jobs' report, a line each, newest first. */
export function printSessionLines(sessions: SessionReport[]): void {
  if (sessions.length === 0) return;
  write('');
  const rows = sessions.map((r) => [
    r.session,
    r.from ?? '-',
    r.job,
    localTime(r.started),
    r.ended !== undefined ? 'ended' : 'open',
    String(r.input),
    String(r.output),
    String(r.toolCalls),
    String(r.denials),
  ]);
  table(['session', 'agent', 'job', 'started', 'state', 'input', 'output', 'tool calls', 'denials'], rows, 5);
}
