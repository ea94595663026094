// `recap report --quality`: each job's memory quality signals (qualitySignals.ts), its totals
// in a line, then a line per summary and the signals under it.
import type { JobQuality, SummaryQuality } from '../../events/qualitySignals.js';
import { localTime } from '../time.js';
import { counted } from './counted.js';

const write = (line: string) => process.stdout.write(`${line}\n`);

const TASK_END = { trip: 'to the next trip', summary: 'to the next summary (no trip)', open: 'so far (no trip yet)' } as const;

function printSummary(s: SummaryQuality): void {
  const gist = s.gist !== undefined ? ` ${JSON.stringify(s.gist.slice(0, 70))}` : '';
  write(`  #${s.seq} ${localTime(s.time)}${gist}`);
  write(
    `    ${s.sessions} sessions after it; ${s.rediscoveries.length} rediscovered, ${s.reasked.length} re-asked, ${s.corrections.length} corrections; ` +
      `task: ${s.task.interactions} interactions, ${s.task.countedTokens} tokens ${TASK_END[s.task.ended]}`,
  );
  for (const r of s.rediscoveries) write(`    rediscovered  ${r.file} (session ${r.session})`);
  for (const r of s.reasked) write(`    re-asked      ${JSON.stringify(r.question)}: the chain holds ${JSON.stringify(r.answer)} (session ${r.session})`);
  for (const c of s.corrections) write(`    correction    ${JSON.stringify(c.prompt)} (session ${c.session})`);
}

export function printQuality(jobs: JobQuality[]): void {
  if (jobs.length === 0) {
    write('no accepted summary yet: the quality signals read the sessions that follow one');
    return;
  }
  jobs.forEach((q, i) => {
    if (i > 0) write('');
    const t = q.totals;
    const perTask = t.tasks > 0 ? `, ${Math.round(t.taskTokens / t.tasks)} tokens and ${Math.round(t.taskInteractions / t.tasks)} interactions per task (${t.tasks} ended)` : '';
    write(
      `job ${q.job}: ${counted(t.summaries, 'summary', 'summaries')}, ${counted(t.sessions, 'session')} after them; ` +
        `${counted(t.rediscoveries, 'file')} rediscovered, ${counted(t.reasked, 'question')} re-asked, ${counted(t.corrections, 'correction')}${perTask}`,
    );
    for (const s of q.summaries) printSummary(s);
  });
}
