// Another machine's chain of the job's repository, fetched by `recap sync`, checked before
// any of it is kept: each entry's hash against its fields, each link against the entry
// before it on its chain, each amendment against its entry, and the chain against what was
// imported from that machine before (a chain is only ever added to: one that lost or
// changed an entry was rewritten). A chain that fails is refused whole, with the entry
// named; one that passes gives a SummaryImported per entry that is new, newly amended or
// newly redacted. None of it touches the gate: imported entries are memory, not summaries
// of this machine's work.
import { GENESIS_HASH, recomputeAmendmentHash, recomputeHash } from './chain.js';
import type { ChainRecord, FetchedChain } from './chainFormat.js';
import type { Decision } from './decision.js';
import type { ChainOrigin, SummaryImported, Time } from './events.js';
import type { ChainEntry, JobState } from './jobState.js';

/** `recap sync` read a machine's chain from the remote (`repo` and `ref`: the repository key and the machine its ref is named after). */
export type ImportChain = { type: 'ImportChain'; job: string; repo: string; ref: string; chain: FetchedChain; now: Time };

export type ImportAnswer = {
  origin: ChainOrigin;
  /** New entries, and entries imported before whose amendments or redaction are new. */
  imported: number;
  updated: number;
  /** Why the chain was refused (nothing of it imported), naming the entry. */
  refused?: string;
  /** The import events of entries now redacted on their machine, whose stored copies still hold the text: to be rewritten without it. */
  redactedCopies: number[];
};

export function importChain(command: ImportChain, state: JobState): Decision<ImportAnswer> {
  const { head, records } = command.chain;
  const origin: ChainOrigin = { machine: head.machine, host: head.host, ...(head.author !== undefined ? { author: head.author } : {}) };
  const refuse = (refused: string): Decision<ImportAnswer> => ({ answer: { origin, imported: 0, updated: 0, refused, redactedCopies: [] }, events: [] });
  if (head.machine !== command.ref) return refuse(`its chain.json names machine ${head.machine}, but it is stored under machine ${command.ref}'s ref`);
  if (head.repo !== command.repo)
    return refuse(`its chain.json names repository ${head.repo}, but it is stored under repository ${command.repo}'s refs: it is another repository's memory`);
  const problem = chainProblem(records, origin);
  if (problem !== undefined) return refuse(problem);
  const known = state.imported.filter((e) => e.origin?.machine === head.machine);
  const lost = knownProblem(known, records, origin);
  if (lost !== undefined) return refuse(lost);
  const byHash = new Map(known.map((e) => [e.hash!, e]));
  const events: SummaryImported[] = [];
  const redactedCopies: number[] = [];
  let updated = 0;
  for (const record of records) {
    const before = byHash.get(record.entry.hash);
    const amendments = record.amendments?.length ?? 0;
    const redacted = isRedacted(record);
    if (before !== undefined) {
      const newer = amendments > (before.originAmendments ?? 0) || (redacted && before.redacted === undefined);
      if (!newer) continue;
      updated += 1;
      if (redacted) redactedCopies.push(...(before.imports ?? []), before.seq);
    }
    events.push({
      type: 'SummaryImported',
      data: {
        job: command.job,
        origin,
        index: record.index,
        originSeq: record.seq,
        entry: record.entry,
        ...(amendments > 0 ? { amendments: record.amendments! } : {}),
        time: command.now,
      },
    });
  }
  return { answer: { origin, imported: events.length - updated, updated, redactedCopies }, events };
}

/** Whether the entry's text is gone on its machine: it, or its amendment in force, was redacted. */
export function isRedacted(record: ChainRecord): boolean {
  return record.entry.redacted === true || record.amendments?.at(-1)?.redacted === true;
}

const label = (origin: ChainOrigin) => `${origin.author ?? 'unknown author'} on ${origin.host}`;
const named = (record: ChainRecord, origin: ChainOrigin) => `entry ${record.index + 1} of ${label(origin)}'s chain (#${record.seq} there, hash ${record.entry.hash.slice(0, 12)})`;

/** The first thing wrong in the chain itself: a hash, a link, an amendment. */
function chainProblem(records: readonly ChainRecord[], origin: ChainOrigin): string | undefined {
  const heads = new Map<string | undefined, string>();
  for (const record of records) {
    const { entry } = record;
    // A redacted entry's fields are gone: it is checked by its links only, as this machine's are.
    if (entry.redacted !== true && recomputeHash(entry) !== entry.hash) {
      return `${named(record, origin)} does not match its hash: its text or fields were changed after it was written`;
    }
    const previous = heads.get(entry.topic) ?? GENESIS_HASH;
    if (entry.prevHash !== previous) return `${named(record, origin)} does not link to the entry before it on its chain: the chain was cut or reordered`;
    heads.set(entry.topic, entry.hash);
    for (const [n, amendment] of (record.amendments ?? []).entries()) {
      const which = `amendment ${n + 1} of ${named(record, origin)}`;
      if (amendment.entryHash !== entry.hash || amendment.entry !== record.seq) return `${which} belongs to another entry`;
      if (amendment.redacted !== true && recomputeAmendmentHash(amendment) !== amendment.hash) return `${which} does not match its hash: it was changed after it was written`;
    }
  }
  return undefined;
}

/** What was imported from the machine before must all still be there, and by the same author: a chain is only ever added to. */
function knownProblem(known: readonly ChainEntry[], records: readonly ChainRecord[], origin: ChainOrigin): string | undefined {
  const author = known.find((e) => e.origin?.author !== undefined)?.origin?.author;
  if (author !== undefined && author !== origin.author) {
    return `the chain of machine ${origin.machine} (${origin.host}) was written by ${author} and now says ${origin.author ?? 'no author'}: it is refused, not relabelled`;
  }
  const hashes = new Set(records.map((r) => r.entry.hash));
  const gone = known.find((e) => !hashes.has(e.hash!));
  if (gone === undefined) return undefined;
  return `${label(origin)}'s chain no longer holds an entry imported before (#${gone.seq} here, hash ${gone.hash!.slice(0, 12)}): the chain was rewritten, and is refused`;
}
