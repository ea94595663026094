// recap eval's replayed windows and probe scores on the terminal: one row per window (its job,
// its summary's number in the job, the window's tokens, today's verdict, the memory's size),
// then the probe scores per window and per kind when --probes asked for them.
import type { ReplayedWindow, windowFigures } from '../../events/evalWindows.js';
import { PROBE_KINDS, type KindScores, type WindowProbes } from '../../events/probes.js';
import { counted } from './counted.js';

export type WindowsResult = {
  log: string;
  figures: ReturnType<typeof windowFigures>;
  windows: (Omit<ReplayedWindow, 'memory' | 'interactions' | 'summary'> & { interactions: number })[];
};

export type ProbesResult = { model: string; url: string; out: string; byKind: KindScores; score: number | null; windows: WindowProbes[] };

const share = (n: number | null) => (n === null ? '-' : n.toFixed(2));
const cell = (text: string, width: number) => text.padStart(width);

export function windowsText(result: WindowsResult): string {
  const { figures, windows } = result;
  const lines = [
    `recap eval: ${counted(figures.windows, 'window')} from ${result.log}; today's rules accept ${figures.accepted}, reject ${figures.rejected}${figures.redacted > 0 ? `, and ${figures.redacted} redacted cannot be judged` : ''}`,
    `Memory after each summary: mean ${figures.memory.mean ?? '-'}, max ${figures.memory.max ?? '-'} tokens.`,
    '',
    `${'job'.padEnd(24)}${cell('summary', 9)}${cell('seq', 8)}${cell('window', 9)}${cell('now', 10)}${cell('memory', 9)}`,
    ...windows.map(
      (w) => `${w.job.padEnd(24)}${cell(`#${w.index}`, 9)}${cell(String(w.seq), 8)}${cell(String(w.windowTokens), 9)}${cell(w.now, 10)}${cell(String(w.memoryTokens), 9)}`,
    ),
  ];
  const regressions = windows.filter((w) => w.now === 'rejected');
  if (regressions.length > 0)
    lines.push(
      '',
      `Accepted then, rejected by today's rules (${regressions.length}):`,
      ...regressions.map((w) => `  ${w.job} #${w.index} (seq ${w.seq}): ${w.problems.join('; ')}`),
    );
  return lines.join('\n');
}

export function probesText(result: ProbesResult): string {
  const header = `${''.padEnd(32)}${PROBE_KINDS.map((k) => cell(k, 12)).join('')}${cell('score', 8)}`;
  const row = (name: string, byKind: KindScores, score: number | null) =>
    `${name.padEnd(32)}${PROBE_KINDS.map((k) => cell(share(byKind[k]), 12)).join('')}${cell(share(score), 8)}`;
  return [
    `Probe scores from ${result.model} at ${result.url}: each answer judged 0-5 against the window, shown as a share of 5 (1.00: every answer right).`,
    '',
    header,
    ...result.windows.map((w) => row(w.name, w.byKind, w.score)),
    row('all', result.byKind, result.score),
    '',
    `Every question, answer and judgement: ${result.out}`,
  ].join('\n');
}
