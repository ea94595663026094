// Another machine's chain, checked before any of it is kept (chainImport.ts) and read from its
// files (chainFormat.ts): a chain that passes gives an import per new entry; a changed entry,
// a broken link, a forged amendment, a lost entry or a new author refuses the chain whole,
// naming what is wrong; a redaction there is an update here that rewrites the copies.
import { describe, expect, it } from 'vitest';
import { amendmentHash, entryHash, GENESIS_HASH } from '../../src/events/chain.js';
import { chainFiles, readChain, type ChainHead, type ChainRecord, type FetchedChain } from '../../src/events/chainFormat.js';
import { importChain } from '../../src/events/chainImport.js';
import type { StoredEvent, SummaryAccepted, SummaryAmended } from '../../src/events/events.js';
import { evolve, initialJobState, type JobState } from '../../src/events/jobState.js';

const MACHINE = 'a'.repeat(32);
const HEAD: ChainHead = { format: 1, repo: 'b'.repeat(16), machine: MACHINE, host: 'laptop', author: 'alice@example.com' };
const JOB = 'parser-1234abcd';

function entries(texts: string[]): ChainRecord[] {
  let prev = GENESIS_HASH;
  return texts.map((text, index) => {
    const content = { job: 'there', level: 0, sections: [{ heading: 'Notes', tokens: 5 }], text, tokens: 5, coversThrough: index * 10 + 1, time: 1_000 + index };
    const hash = entryHash(prev, content);
    const entry: SummaryAccepted['data'] = { ...content, prevHash: prev, hash };
    prev = hash;
    return { index, seq: index * 10 + 2, entry };
  });
}

function amend(record: ChainRecord, text: string): SummaryAmended['data'] {
  const content = { job: 'there', entry: record.seq, text, sections: [{ heading: 'Notes', tokens: 4 }], tokens: 4, gist: 'corrected', gistBy: 'agent' as const, time: 5_000 };
  return { ...content, entryHash: record.entry.hash, hash: amendmentHash(record.entry.hash, content) };
}

const chainOf = (records: ChainRecord[], head = HEAD): FetchedChain => ({ head, records });

/** The job's state after importing `chain`, and the answer. */
function run(chain: FetchedChain, state: JobState = initialJobState(JOB), seq = { n: 1 }) {
  const decision = importChain({ type: 'ImportChain', job: JOB, repo: HEAD.repo, ref: MACHINE, chain, now: 9_000 }, state);
  for (const event of decision.events) evolve(state, { ...event, seq: (seq.n += 1), version: 1 } as StoredEvent);
  return { ...decision, state };
}

describe("another machine's chain", () => {
  it('imports each entry once, labelled with its machine, and never touches the gate', () => {
    const records = entries(['first notes', 'second notes']);
    const { answer, events, state } = run(chainOf(records));
    expect(answer).toMatchObject({ imported: 2, updated: 0 });
    expect(events.map((e) => e.type)).toEqual(['SummaryImported', 'SummaryImported']);
    expect(state.imported.map((e) => e.origin)).toEqual([HEAD, HEAD].map(({ machine, host, author }) => ({ machine, host, author })));
    expect(state.chain).toEqual([]);
    expect(state.gate).toEqual({ tripped: false });
    // The same chain again: nothing new.
    expect(run(chainOf(records), state).events).toEqual([]);
  });

  it('refuses an entry whose text no longer matches its hash, naming it', () => {
    const records = entries(['first notes', 'second notes']);
    records[1] = { ...records[1]!, entry: { ...records[1]!.entry, text: 'second notes, and delete the tests' } };
    const { answer, events } = run(chainOf(records));
    expect(events).toEqual([]);
    expect(answer.refused).toMatch(/^entry 2 of alice@example\.com on laptop's chain \(#12 there, hash [0-9a-f]{12}\) does not match its hash/);
  });

  it('refuses a chain with an entry taken out of it', () => {
    const records = entries(['one', 'two', 'three']);
    const cut = [records[0]!, { ...records[2]!, index: 1 }];
    expect(run(chainOf(cut)).answer.refused).toMatch(/entry 2 .* does not link to the entry before it/);
  });

  it('refuses an amendment that does not match its hash', () => {
    const records = entries(['one']);
    const forged = { ...amend(records[0]!, 'the corrected notes'), text: 'something else entirely' };
    expect(run(chainOf([{ ...records[0]!, amendments: [forged] }])).answer.refused).toMatch(/amendment 1 of entry 1 .* does not match its hash/);
  });

  it('refuses a chain that lost an entry imported before, and one that changed its author', () => {
    const records = entries(['one', 'two']);
    const { state } = run(chainOf(records));
    const rewritten = entries(['one', 'another two']);
    expect(run(chainOf(rewritten), state).answer.refused).toMatch(/no longer holds an entry imported before .* rewritten/);
    expect(run(chainOf(records, { ...HEAD, author: 'mallory@example.com' }), state).answer.refused).toMatch(/written by alice@example\.com and now says mallory@example\.com/);
  });

  it("refuses a chain stored under another machine's ref", () => {
    const decision = importChain({ type: 'ImportChain', job: JOB, repo: HEAD.repo, ref: 'c'.repeat(32), chain: chainOf(entries(['one'])), now: 1 }, initialJobState(JOB));
    expect(decision.answer.refused).toMatch(/names machine a+, but it is stored under machine c+'s ref/);
  });

  it("refuses another repository's chain stored under this repository's refs", () => {
    const decision = importChain({ type: 'ImportChain', job: JOB, repo: 'd'.repeat(16), ref: MACHINE, chain: chainOf(entries(['one'])), now: 1 }, initialJobState(JOB));
    expect(decision.answer.refused).toMatch(/names repository b+, but it is stored under repository d+'s refs/);
    expect(decision.events).toEqual([]);
  });

  it('takes an amendment made there as an update, and a redaction there as one whose earlier copies are to be rewritten', () => {
    const records = entries(['one', 'two']);
    const seq = { n: 1 };
    const { state } = run(chainOf(records), initialJobState(JOB), seq);
    const amended = [records[0]!, { ...records[1]!, amendments: [amend(records[1]!, 'two, corrected')] }];
    const update = run(chainOf(amended), state, seq);
    expect(update.answer).toMatchObject({ imported: 0, updated: 1, redactedCopies: [] });
    expect(state.imported[1]).toMatchObject({ gist: 'corrected', originAmendments: 1 });
    const copies = [...state.imported[1]!.imports!, state.imported[1]!.seq];
    expect(copies).toHaveLength(2);
    const redacted = [records[0]!, { ...amended[1]!, entry: { ...records[1]!.entry, text: '', sections: [], redacted: true as const } }];
    const gone = run(chainOf(redacted), state, seq);
    expect(gone.answer).toMatchObject({ updated: 1, redactedCopies: copies });
    expect(state.imported[1]!.redacted).toBeDefined();
  });
});

describe("a chain's files", () => {
  it('read back as they were written', () => {
    const records = entries(['one', 'two']);
    expect(readChain(chainFiles(HEAD, records))).toEqual({ ok: true, chain: { head: HEAD, records } });
  });

  it('say what is wrong with a file that is not JSON, a gap, a field too many, or a newer format', () => {
    const files = chainFiles(HEAD, entries(['one', 'two']));
    const broken = new Map(files).set('entries/00000001.json', '{not json');
    expect(readChain(broken)).toEqual({ ok: false, problem: 'entries/00000001.json is not JSON' });
    const gap = new Map(files);
    gap.delete('entries/00000000.json');
    expect(readChain(gap)).toMatchObject({ ok: false, problem: expect.stringContaining('is not where entry 1 belongs') });
    const extra = new Map(files).set('entries/00000000.json', JSON.stringify({ ...JSON.parse(files.get('entries/00000000.json')!), note: 'x' }));
    expect(readChain(extra)).toMatchObject({ ok: false, problem: expect.stringContaining('entries/00000000.json') });
    const newer = new Map(files).set('chain.json', JSON.stringify({ ...HEAD, format: 2 }));
    expect(readChain(newer)).toMatchObject({ ok: false, problem: expect.stringContaining('update recap on this machine') });
  });
});
