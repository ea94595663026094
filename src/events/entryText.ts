// What text an entry of the chain has now: its own, the newest amendment's (`recap amend`),
// or none (`recap redact`). The one place that decides it: memory, show, chain, the page,
// search and the decision log all ask here.
import type { ChainOrigin, SummaryAccepted, SummaryImported, Time } from './events.js';

/** What an entry of the chain (jobState.ts ChainEntry) says of its edits, and whose it is. */
type Edited = { seq: number; amendments?: number[]; redacted?: { seq: number; time: Time; reason?: string }; origin?: ChainOrigin };

/** The gist a redacted entry shows in indexes. */
export const REDACTED_GIST = '[redacted]';

export type EntryText =
  /** The entry's own text, in the SummaryAccepted event `seq`. */
  | { state: 'original'; seq: number }
  /** An amendment's, in the SummaryAmended event `seq`. */
  | { state: 'amended'; seq: number }
  /** Another machine's entry's, in the SummaryImported event `seq` (importedInForce says which of its texts). */
  | { state: 'imported'; seq: number }
  /** None: removed by the user at `time`. */
  | { state: 'redacted'; time: Time; reason?: string };

export function entryText(entry: Edited): EntryText {
  const amendment = entry.amendments?.at(-1);
  const { redacted } = entry;
  // An amendment made after a redaction gives the entry a text again; one made before went with it.
  if (redacted !== undefined && (amendment === undefined || amendment < redacted.seq)) {
    return { state: 'redacted', time: redacted.time, ...(redacted.reason !== undefined ? { reason: redacted.reason } : {}) };
  }
  if (entry.origin !== undefined) return { state: 'imported', seq: entry.seq };
  return amendment !== undefined ? { state: 'amended', seq: amendment } : { state: 'original', seq: entry.seq };
}

/** A text in force as show, search and the decision log read it. */
export type TextInForce = Pick<SummaryAccepted['data'], 'text' | 'sections' | 'tokens' | 'gist' | 'gistBy' | 'refs' | 'redacted'>;

/**
 * The text in force of another machine's entry, as its SummaryImported event carries it: its
 * machine's newest amendment's, else the entry's own; `redacted` when it was redacted there.
 */
export function importedInForce(data: Pick<SummaryImported['data'], 'entry' | 'amendments'>): TextInForce {
  const { text, sections, tokens, gist, gistBy, refs, redacted } = data.amendments?.at(-1) ?? data.entry;
  const gone = redacted === true || data.entry.redacted === true;
  return {
    text: gone ? '' : text,
    sections: gone ? [] : sections,
    tokens,
    ...(gist !== undefined && !gone ? { gist } : {}),
    ...(gistBy !== undefined ? { gistBy } : {}),
    ...(refs !== undefined && !gone ? { refs } : {}),
    ...(gone ? { redacted: true as const } : {}),
  };
}

/** How an entry of another machine's chain is labelled: its git author if known, else its host. */
export const originLabel = (origin: ChainOrigin): string => origin.author ?? origin.host;

/** ` [label]` after an entry's number for another machine's entry; '' for this machine's. */
export const originMark = (entry: { origin?: ChainOrigin | undefined }): string => (entry.origin === undefined ? '' : ` [${originLabel(entry.origin)}]`);

/** Whether the entry has a text to show. */
export const hasText = (entry: Edited): boolean => entryText(entry).state !== 'redacted';

/** What stands in for a redacted entry's text where a text is shown. */
export function redactedText(seq: number, time: Time, reason?: string): string {
  return `[summary #${seq}: its text was redacted by the user on ${new Date(time).toISOString().slice(0, 10)}${reason !== undefined ? ` (${reason})` : ''}]`;
}
