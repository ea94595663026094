// `decisions`: the job's decision log (decisionLog.ts), newest first, whole up to 100
// entries (or `limit`), the older ones as an index of one line each. A read: it appends
// nothing. A job named that has no events is answered with a notice, as status is.
import { decisionLogView } from '../../events/decisionLog.js';
import type { RequestOf, ResponseOf } from '../../protocol/protocol.js';
import type { CommandService } from '../commandService.js';
import { DecisionLogs } from '../decisionLogs.js';
import { noted } from './job.js';
import { allEntries } from '../../events/jobState.js';
import type { OpsOf } from './table.js';

export function decisionOps(s: CommandService, logs = new DecisionLogs(s.deps.store)): OpsOf<'decisions'> {
  return { decisions: (r) => noted(s, r.job, () => decisions(s, logs, r)) };
}

export async function decisions(s: CommandService, logs: DecisionLogs, r: RequestOf<'decisions'>): Promise<ResponseOf<'decisions'>> {
  const where = s.where(r);
  // Waits for the writes in flight: a summary just accepted is in the log, and in the chain.
  await s.read(where);
  const entries = await logs.of(where.job, () => allEntries(s.state(where.job)));
  return decisionLogView(entries, r.limit);
}
