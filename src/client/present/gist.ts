// One line per event type for `recap log`: what happened, in a few words. The table is typed
// over every event type, so a new type cannot be added without saying how it reads.
import type { Caller } from '../../events/caller.js';
import type { EventType, RecapEvent } from '../../events/events.js';
import { localTime } from '../time.js';
import { counted } from './counted.js';

type DataOf<T extends EventType> = Extract<RecapEvent, { type: T }>['data'];

const APPROVED_BY = { allow: 'by the user', stricter: 'at once: it made the gate stricter', firstSeen: 'as the user file first seen' } as const;

const quoted = (text: string, max = 60) => `${JSON.stringify(text.slice(0, max))}${text.length > max ? '...' : ''}`;
const shortHash = (hash: string) => hash.slice(0, 12);
/** Who ran a user's command, when the daemon recorded it. */
const by = (caller: Caller | undefined) => (caller !== undefined ? ` by process ${caller.pid} (${caller.ancestry})` : '');
const local = (time: number) => localTime(time);

const GISTS: { [T in EventType]: (data: DataOf<T>) => string } = {
  InteractionRecorded: (d) => `${d.kind}, ${d.tokens} tokens${d.paused ? ' (paused, not counted)' : ''}: ${d.redacted ? '[redacted]' : quoted(d.text)}`,
  UsageRecorded: (d) => `${d.model ?? 'model'}: ${d.input} in, ${d.output} out, ${d.cacheRead} cache read, ${d.cacheCreation} cache written`,
  GateTripped: (d) => `${d.reason}: ${d.unsummarizedTokens} unsummarized, limit ${d.limit}${by(d.by)}`,
  ToolDenied: (d) => `${d.tool} (${d.cause})`,
  SummaryRejected: (d) => `${counted(d.problems.length, 'problem')}: ${d.problems[0] ?? ''}`,
  SummaryAccepted: (d) => `level ${d.level}, ${d.tokens} tokens, through #${d.coversThrough}, ${shortHash(d.hash)}${d.redacted ? ' [redacted]' : ''}`,
  ConfigApplied: (d) =>
    `${d.job !== undefined ? `job ${d.job}` : 'user'}: threshold ${String(d.values.TOKEN_THRESHOLD)}, band ${String(d.values.SUMMARY_MIN_TOKENS)}..${String(d.values.SUMMARY_MAX_TOKENS)}`,
  SessionBound: (d) => `session ${d.session} keeps job ${d.job} (first seen in ${d.cwd})`,
  ConfigApproved: (d) => `${d.file} approved ${APPROVED_BY[d.by] ?? 'by the user'} (sha256 ${shortHash(d.hash)})${by(d.caller)}`,
  ConfigHeld: (d) => `${d.file} (sha256 ${shortHash(d.hash)}) held, waiting for approval: ${d.held.map((h) => h.key).join(', ')}`,
  TripCancelled: (d) => `the ${d.reason} trip cancelled${by(d.by)}`,
  GatePaused: (d) => `until ${local(d.until)}${by(d.by)}`,
  GateResumed: (d) => `resumed${by(d.by)}`,
  NoticeShown: (d) => `${d.kind} notice about #${d.about}: ${quoted(d.text)}`,
  SummaryAmended: (d) => `summary #${d.entry} amended, ${d.tokens} tokens${by(d.by)}${d.redacted ? ' [redacted]' : `: ${quoted(d.gist)}`}`,
  EntryRedacted: (d) =>
    `the text of ${d.what} #${d.seq}${d.amendments?.length ? ` and its ${d.amendments.length} amendments` : ''} redacted${d.reason !== undefined ? ` (${d.reason})` : ''}${by(d.by)}`,
  SessionEnded: (d) =>
    `${d.from} session ${d.session} ended${d.reason !== undefined ? ` (${d.reason})` : ''}: ${d.input} in, ${d.output} out, ${d.toolCalls} tool calls, ${d.denials} denied`,
  JobIdentified: (d) =>
    `${d.project} is repository ${d.repo.name} (${d.repo.root.slice(0, 12)}${d.repo.sub !== '' ? `, ${d.repo.sub}` : ''}): job ${d.job}${d.joined ? ', joined' : ''}`,
  SummaryImported: (d) =>
    `summary ${d.index + 1} of ${d.origin.author ?? d.origin.host} (${d.origin.host}), level ${d.entry.level}, ${shortHash(d.entry.hash)}${d.entry.redacted ? ' [redacted]' : ''}${d.amendments?.length ? `, ${d.amendments.length} amendments` : ''}`,
  FirstCallsRecorded: (d) => `the first ${d.calls.length} tool calls of session ${d.session}: ${[...new Set(d.calls.map((c) => c.kind))].join(', ')}`,
  RecapDisabled: (d) => `RECAP_DISABLE in the ${d.agent} session${d.session !== undefined ? ` ${d.session}` : ''}: everything let through, uncounted`,
};

/** The gist of an event as `recap log` prints it; an event type this recap does not know reads as nothing. */
export function eventGist(type: string, data: unknown): string {
  const gist = Object.hasOwn(GISTS, type) ? (GISTS[type as EventType] as (d: unknown) => string) : undefined;
  try {
    return gist?.(data) ?? '';
  } catch {
    // An older event missing a field this line reads: the type alone says what happened.
    return '';
  }
}
