// A session's end, recorded with its figures: the session's report from the log (its usage
// just read from the transcript included) and the tool calls this daemon judged for it.
import { emptyReport, figuresOf } from '../../events/sessionReport.js';
import type { CommandService } from '../commandService.js';
import type { SessionEnd } from '../hookOps.js';
import type { Where } from '../jobResolver.js';

export async function sessionEnded(s: CommandService, where: Where, end: SessionEnd): Promise<void> {
  const { session, from, reason } = end;
  const report = (await s.sessions.report(session)) ?? emptyReport(session, where.job, s.now());
  const figures = figuresOf(report, s.sessions.toolCallsOf(session));
  await s.transact(where, (job, now) => ({ type: 'EndSession', job, session, from, ...(reason !== undefined ? { reason } : {}), started: report.started, figures, now }));
}
