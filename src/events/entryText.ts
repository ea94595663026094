// What text an entry of the chain has now: its own, the newest amendment's (`recap amend`),
// or none (`recap redact`). The one place that decides it: memory, show, chain, the page,
// search and the decision log all ask here.
import type { Time } from './events.js';

/** What an entry of the chain (jobState.ts ChainEntry) says of its edits. */
type Edited = { seq: number; amendments?: number[]; redacted?: { seq: number; time: Time; reason?: string } };

/** The gist a redacted entry shows in indexes. */
export const REDACTED_GIST = '[redacted]';

export type EntryText =
  /** The entry's own text, in the SummaryAccepted event `seq`. */
  | { state: 'original'; seq: number }
  /** An amendment's, in the SummaryAmended event `seq`. */
  | { state: 'amended'; seq: number }
  /** None: removed by the user at `time`. */
  | { state: 'redacted'; time: Time; reason?: string };

export function entryText(entry: Edited): EntryText {
  const amendment = entry.amendments?.at(-1);
  const { redacted } = entry;
  // An amendment made after a redaction gives the entry a text again; one made before went with it.
  if (redacted !== undefined && (amendment === undefined || amendment < redacted.seq)) {
    return { state: 'redacted', time: redacted.time, ...(redacted.reason !== undefined ? { reason: redacted.reason } : {}) };
  }
  return amendment !== undefined ? { state: 'amended', seq: amendment } : { state: 'original', seq: entry.seq };
}

/** Whether the entry has a text to show. */
export const hasText = (entry: Edited): boolean => entryText(entry).state !== 'redacted';

/** What stands in for a redacted entry's text where a text is shown. */
export function redactedText(seq: number, time: Time, reason?: string): string {
  return `[summary #${seq}: its text was redacted by the user on ${new Date(time).toISOString().slice(0, 10)}${reason !== undefined ? ` (${reason})` : ''}]`;
}
