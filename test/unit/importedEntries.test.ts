// Other machines' entries (SummaryImported) as the domain reads them: the memory chooses them
// with this machine's by time and labels them, their own machine's rollups roll them up, their
// files are named and never read; their text in force; their decisions; what verify checks.
import { describe, expect, it } from 'vitest';
import { entryHash, GENESIS_HASH, amendmentHash, type ChainContent } from '../../src/events/chain.js';
import { decisionSources, newDecisions } from '../../src/events/decisionLog.js';
import { entryText, importedInForce } from '../../src/events/entryText.js';
import type { ChainOrigin, FileReference, RecapEvent, StoredEvent, SummaryAccepted, SummaryAmended } from '../../src/events/events.js';
import { ImportedChecks } from '../../src/events/importedChecks.js';
import { evolve, initialJobState, type JobState, type SummaryTexts } from '../../src/events/jobState.js';
import { memoryText, type MemoryBudget } from '../../src/events/memory.js';
import { indexedSource } from '../../src/events/searchText.js';
import { wordsCounter } from '../../src/events/tokens.js';

const count = wordsCounter(1);
const budget: MemoryBudget = { summaries: 2000, index: 1000, files: 1000 };
const ALICE: ChainOrigin = { machine: 'm-alice', host: 'alice-laptop', author: 'alice@example.com' };
const BOB: ChainOrigin = { machine: 'm-bob', host: 'bob-box' };
const DAY = Date.UTC(2026, 10, 27);
const REF: FileReference = { mode: 'read', path: 'services/ingest/importer.go', why: 'the lock', sha256: 'a'.repeat(64), tokens: 40 };

function summary(text: string, prevHash: string, time: number, extra: Partial<ChainContent> = {}): SummaryAccepted['data'] {
  const content: ChainContent = {
    job: 'their-job',
    level: 0,
    sections: [{ heading: 'User Requests', tokens: 10 }],
    text,
    tokens: 20,
    coversThrough: 7,
    gist: text.slice(0, 30),
    time,
    ...extra,
  };
  return { ...content, prevHash, hash: entryHash(prevHash, content) };
}

/** A job's state from its events, numbered from 1. */
function stateOf(events: RecapEvent[]): { state: JobState; texts: Map<number, string> } {
  const state = initialJobState('job');
  const texts = new Map<number, string>();
  events.forEach((event, i) => {
    const stored = { ...event, seq: i + 1, version: 1 } as StoredEvent;
    evolve(state, stored);
    if (event.type === 'SummaryAccepted') texts.set(stored.seq, event.data.text);
    if (event.type === 'SummaryImported') texts.set(stored.seq, importedInForce(event.data).text);
  });
  return { state, texts };
}

const accepted = (data: SummaryAccepted['data']): RecapEvent => ({ type: 'SummaryAccepted', data: { ...data, job: 'job' } });
const imported = (origin: ChainOrigin, entry: SummaryAccepted['data'], originSeq: number, amendments?: SummaryAmended['data'][]): RecapEvent => ({
  type: 'SummaryImported',
  data: { job: 'job', origin, index: 0, originSeq, entry, ...(amendments ? { amendments } : {}), time: DAY + 99_000 },
});

describe("the memory with other machines' entries", () => {
  it('shows every chain newest last by time, each of another machine labelled with its author, else its host', () => {
    const own = summary('our parser work', GENESIS_HASH, DAY + 1000);
    const alices = summary('alice importer locks', GENESIS_HASH, DAY + 3000);
    const bobs = summary('bob dashboard panel', GENESIS_HASH, DAY + 2000);
    const { state, texts } = stateOf([accepted(own), imported(ALICE, alices, 12), imported(BOB, bobs, 40)]);
    const memory = memoryText(state, budget, count, texts as SummaryTexts, 'recap');
    expect(memory).toContain("3 summaries: 1 in this machine's chain, 2 from other machines' chains.");
    const order = ['our parser work', 'bob dashboard panel', 'alice importer locks'].map((t) => memory.indexOf(t));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(memory).toContain("### Summary #2, from alice@example.com's chain on alice-laptop,");
    expect(memory).toContain("### Summary #3, from bob-box's chain on bob-box,");
  });

  it("treats an entry rolled up by its own machine's rollup as rolled up, and no entry of this machine by the same number", () => {
    const own = summary('our own summary numbered twelve there', GENESIS_HASH, DAY + 1000);
    const theirs = summary('alice entry rolled up', GENESIS_HASH, DAY + 2000);
    const rollup = summary('alice rollup of her work', theirs.hash, DAY + 3000, { level: 1, rolls: [12, 1] });
    // This machine's summary is #1 here: Alice's rollup names her log's #1, not it.
    const { state, texts } = stateOf([accepted(own), imported(ALICE, theirs, 12), imported(ALICE, rollup, 20)]);
    const memory = memoryText(state, budget, count, texts as SummaryTexts, 'recap');
    expect(memory).toContain('### Rollup (level 1) of 2 summaries #3,');
    expect(memory).toContain('our own summary numbered twelve there');
    expect(memory).not.toContain('### Summary #2,');
    expect(memory).toMatch(/^#2 \[alice@example.com\] 2026-11-27 — alice entry rolled up$/m);
  });

  it('lists the files of a newer summary of another machine by name only', () => {
    const own = summary('ours', GENESIS_HASH, DAY + 1000);
    const theirs = summary('theirs with files', GENESIS_HASH, DAY + 2000, { refs: [REF] });
    const { state, texts } = stateOf([accepted(own), imported(ALICE, theirs, 5)]);
    const memory = memoryText(state, budget, count, texts as SummaryTexts, 'recap');
    expect(memory).toContain(
      "Files named by summary #2 [alice@example.com] on alice-laptop (names only: its paths are that machine's, not read here):\n- read services/ingest/importer.go — the lock",
    );
  });
});

describe("another machine's entry's text in force", () => {
  const entry = summary('## Decisions\n- Lock per batch — no double ingest', GENESIS_HASH, DAY);
  const amendment = (text: string, redacted?: true): SummaryAmended['data'] => {
    const content = { job: 'their-job', entry: 4, text, sections: [], tokens: 9, gist: 'amended gist', gistBy: 'agent' as const, time: DAY + 5, ...(redacted ? { redacted } : {}) };
    return { ...content, entryHash: entry.hash, hash: amendmentHash(entry.hash, content) };
  };

  it('is its newest amendment there, else its own; search reads that text', () => {
    expect(importedInForce({ entry }).text).toBe(entry.text);
    const amended = importedInForce({ entry, amendments: [amendment('first fix'), amendment('second fix')] });
    expect(amended.text).toBe('second fix');
    expect(indexedSource(amended)?.text).toBe('second fix');
  });

  it('is none once redacted there: the entry shows as redacted and search indexes nothing', () => {
    const gone = importedInForce({ entry, amendments: [amendment('', true)] });
    expect(gone).toMatchObject({ text: '', redacted: true });
    expect(indexedSource(gone)).toBeUndefined();
    const { state } = stateOf([imported(ALICE, { ...entry, text: '', redacted: true }, 4)]);
    expect(entryText(state.imported[0]!).state).toBe('redacted');
  });
});

describe("the decision log and another machine's entries", () => {
  it('reads each import of an entry, the later as amendments, and labels its decisions', () => {
    const entry = summary('## Questions & Decisions\n- Lock per batch — no double ingest', GENESIS_HASH, DAY);
    const { state } = stateOf([imported(ALICE, entry, 4), imported(ALICE, entry, 4)]);
    const [again] = state.imported;
    expect(state.imported).toHaveLength(1);
    expect(decisionSources(again!)).toEqual([1, 2]);
    const [logged] = newDecisions(7, new Set(), again!, entry.text, 1);
    expect(logged).toMatchObject({ n: 8, decision: 'Lock per batch', from: 'alice@example.com', source: 1 });
  });
});

describe("verify's checks of imported entries", () => {
  const first = summary('first', GENESIS_HASH, DAY);
  const second = summary('second', first.hash, DAY + 1);
  const data = (entry: SummaryAccepted['data'], originSeq: number) => ({ job: 'job', origin: ALICE, index: originSeq, originSeq, entry, time: DAY });

  it('passes an intact chain, and the same entry imported again', () => {
    const checks = new ImportedChecks();
    expect([data(first, 0), data(second, 1), data(second, 1)].flatMap((d) => checks.check(d))).toEqual([]);
  });

  it('names an entry whose text was changed', () => {
    const checks = new ImportedChecks();
    checks.check(data(first, 0));
    const [problem] = checks.check(data({ ...second, text: 'changed' }, 1));
    expect(problem?.what).toBe(
      "alice@example.com's summary #1 (machine m-alice, entry 1 of its chain) does not match its hash: its text or another field was changed after its machine accepted it",
    );
  });

  it('names an entry whose link is to no entry imported before it, and a rewritten chain', () => {
    expect(new ImportedChecks().check(data(second, 1))[0]?.what).toMatch(/summary #1 .*: the link is broken: previous hash [0-9a-f]{12} is no entry/);
    const checks = new ImportedChecks();
    checks.check(data(first, 0));
    checks.check(data(second, 1));
    const other = summary('another second', first.hash, DAY + 2);
    expect(checks.check(data(other, 1))[0]?.what).toMatch(/both link to [0-9a-f]{12}: that machine's chain was rewritten/);
  });
});
