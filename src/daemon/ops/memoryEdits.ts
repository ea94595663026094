// The user's edits of a job's memory: `recap amend N` and `recap redact N`. Both are the
// user's commands (protocol.ts userCommand): the handler has judged the caller already. A
// redaction rewrites the events that held the text in the same batch as its EntryRedacted,
// then replaces the log's snapshots and compacts it, so the text leaves LevelDB's files; the
// copies keep how many decision-log entries their texts gave (decisionLogs.ts).
import type { Caller } from '../../events/caller.js';
import type { RedactTarget } from '../../events/commands.js';
import type { StoredEvent } from '../../events/events.js';
import { amendSeqs, redactedCopy } from '../../events/memoryEdits.js';
import { allEntries } from '../../events/jobState.js';
import { byOf } from '../../events/switches.js';
import type { RequestOf, ResponseOf } from '../../protocol/protocol.js';
import type { CommandService } from '../commandService.js';
import type { DecisionLogs } from '../decisionLogs.js';
import { lookUpReferences } from '../referenceFiles.js';
import { findSecrets } from '../secretScanner.js';
import { defined, type OpsOf } from './table.js';

export function memoryEditOps(s: CommandService, logs: DecisionLogs): OpsOf<'amend' | 'redact'> {
  return {
    amend: (r, _, by) => amend(s, r, by),
    redact: (r, _, by) => redact(s, logs, r, by),
  };
}

/** Validated as a summary; the files its `## Files` section names are looked up as a submission's are. */
async function amend(s: CommandService, r: RequestOf<'amend'>, by?: Caller): Promise<ResponseOf<'amend'>> {
  const where = s.where(r);
  const prepared = await s.prepare(where.project);
  await s.deps.store.flushed();
  const [stored] = await s.deps.store.get([r.seq]);
  // A number that is no summary is refused by the decider, which names the job's summaries.
  const entryHash = stored?.type === 'SummaryAccepted' ? stored.data.hash : '';
  const files = await lookUpReferences(r.text, prepared.decide.config.REQUIRED_SECTIONS, where.project, prepared.decide);
  const secrets = await findSecrets(r.text);
  const command = { entry: r.seq, entryHash, text: r.text, files, ...(secrets.length > 0 ? { secrets } : {}), ...defined({ root: where.project }), ...byOf({ by }) };
  return s.transact(where, (job, now) => ({ type: 'AmendSummary', job, ...command, now }), {
    texts: amendSeqs(r.seq),
    prepared,
    render: (answer, done) => (answer.amended ? { ...answer, seq: done.stored.find((e) => e.type === 'SummaryAmended')?.seq ?? 0 } : answer),
  });
}

async function redact(s: CommandService, logs: DecisionLogs, r: RequestOf<'redact'>, by?: Caller): Promise<ResponseOf<'redact'>> {
  const where = s.where(r);
  await s.read(where);
  const [stored] = await s.deps.store.get([r.seq]);
  const amendments = stored?.type === 'SummaryAccepted' ? (s.state(where.job).chain.find((e) => e.seq === r.seq)?.amendments ?? []) : [];
  const copies = [...(stored ? [stored] : []), ...(await s.deps.store.get(amendments))];
  // What the decision log took of these texts: their copies keep the count, so its numbers stay.
  const decisions = stored?.type === 'SummaryAccepted' ? await logs.counts(where.job, () => allEntries(s.state(where.job)), [r.seq, ...amendments]) : new Map<number, number>();
  const answer = await s.transact(
    where,
    (job, now) => ({ type: 'RedactEntry', job, seq: r.seq, target: stored && target(stored), ...defined({ reason: r.reason }), ...byOf({ by }), now }),
    {
      // Written again in their place in the same batch as the EntryRedacted: never one without the other.
      rewrites: (events) => (events.some((e) => e.type === 'EntryRedacted') ? copies.map((copy) => redactedCopy(copy, decisions.get(copy.seq))) : []),
    },
  );
  if (!answer.already) await s.purgeLog();
  return { ...answer, seq: r.seq };
}

/** What a redaction is told of the event at its number. */
function target(event: StoredEvent): RedactTarget {
  const data = event.data as { job?: string; hash?: string; entry?: number; redacted?: true };
  return {
    type: event.type,
    ...defined({ job: data.job, hash: event.type === 'SummaryAccepted' ? data.hash : undefined, entry: event.type === 'SummaryAmended' ? data.entry : undefined }),
    redacted: data.redacted === true,
  };
}
