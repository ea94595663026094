// Summaries as recap shows them: each with its text in force (entryText.ts), read from the log.
// An amended summary shows the amendment's text, sections, size and files and says so; a
// redacted one shows none and says when and why; `original` asks for the entry's own text.
// Another machine's entry shows its text in force there, with whose it is (`origin`).
import { entryText, importedInForce } from '../events/entryText.js';
import type { StoredEvent } from '../events/events.js';
import type { ChainEntry } from '../events/jobState.js';
import type { EntryEdits, ResponseOf } from '../protocol/protocol.js';
import type { EventStore } from './eventStore.js';

export type EntryInForce = ResponseOf<'chain'>['entries'][number];

export async function entriesInForce(store: Pick<EventStore, 'get'>, entries: readonly ChainEntry[], original = false): Promise<EntryInForce[]> {
  const sources = entries.map((e) => ({ entry: e, source: entryText(e) }));
  const amendmentSeqs = sources.flatMap(({ source }) => (source.state === 'amended' ? [source.seq] : []));
  const events = await store.get([...entries.map((e) => e.seq), ...amendmentSeqs]);
  const bySeq = new Map(events.map((e) => [e.seq, e]));
  return sources.flatMap(({ entry, source }) => {
    const accepted = bySeq.get(entry.seq);
    if (accepted?.type === 'SummaryImported') return [imported(accepted, original)];
    if (accepted?.type !== 'SummaryAccepted') return [];
    const edits: EntryEdits = {
      ...(entry.redacted !== undefined ? { redaction: { time: entry.redacted.time, ...(entry.redacted.reason !== undefined ? { reason: entry.redacted.reason } : {}) } } : {}),
    };
    const own = { ...accepted.data, seq: entry.seq, ...edits };
    if (source.state !== 'amended') return [own];
    const amendment = bySeq.get(source.seq);
    if (amendment?.type !== 'SummaryAmended') return [own];
    const { text, sections, tokens, gist, gistBy, refs, filesRoot, time } = amendment.data;
    if (original) return [{ ...own, amendment: { seq: source.seq, time } }];
    const { refs: _refs, filesRoot: _root, ...kept } = own;
    return [{ ...kept, text, sections, tokens, gist, gistBy, ...(refs ? { refs } : {}), ...(filesRoot !== undefined ? { filesRoot } : {}), amendment: { seq: source.seq, time } }];
  });
}

/**
 * Another machine's entry as its import carries it: the entry as that machine accepted it
 * (its hash checks), with the text in force there unless `original` asks for the entry's own.
 */
function imported(event: StoredEvent & { type: 'SummaryImported' }, original: boolean): EntryInForce {
  const { entry, origin, originSeq, amendments } = event.data;
  const own = { ...entry, seq: event.seq, origin, originSeq };
  if (original || amendments === undefined || amendments.length === 0) return own;
  const { refs: _refs, filesRoot: _root, gist: _gist, ...kept } = own;
  const { text, sections, tokens, gist, gistBy, refs, redacted } = importedInForce(event.data);
  return {
    ...kept,
    text,
    sections,
    tokens,
    ...(gist !== undefined ? { gist } : {}),
    ...(gistBy !== undefined ? { gistBy } : {}),
    ...(refs ? { refs } : {}),
    ...(redacted ? { redacted } : {}),
  };
}
