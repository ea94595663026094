// What search reads of a summary (its parts), the snippet a hit shows, and the entries a
// timeline shows: the pure parts of search and timeline.
import { describe, expect, it } from 'vitest';
import { GIST_SECTION, indexedSeq, indexedSource, matchedPart, searchParts, searchWords } from '../../src/events/searchText.js';
import { snippetOf } from '../../src/events/searchSnippet.js';
import { timelineWindow } from '../../src/events/timeline.js';
import type { ChainEntry } from '../../src/events/jobState.js';

const TEXT = [
  'Gist: refunds go to the original card',
  'A note before the sections.',
  '',
  '## Questions & Decisions',
  'Refunds go back to the card they came from.',
  '### A nested heading',
  'It stays in its section.',
  '',
  '## Current State:',
  '```md',
  '## not a heading',
  '```',
  '',
  '## Files',
  '- read src/refund.ts:1-20 — the refund path',
].join('\n');
const REFS = [{ mode: 'read' as const, path: 'src/refund.ts', start: 1, end: 20, why: 'the refund path' }];

describe('searchParts', () => {
  it('splits a summary into its gist, its opening text, each top-level section under its heading as written, and its files', () => {
    expect(searchParts({ text: TEXT, gist: 'refunds go to the original card', refs: REFS })).toEqual([
      { section: 'Gist', text: 'refunds go to the original card' },
      { section: 'Opening', text: 'A note before the sections.' },
      { section: 'Questions & Decisions', text: 'Refunds go back to the card they came from.\n### A nested heading\nIt stays in its section.' },
      { section: 'Current State:', text: '```md\n## not a heading\n```' },
      { section: 'Files', text: 'read src/refund.ts:1-20 — the refund path' },
    ]);
  });

  it('keeps a Files section as text when the summary named no files', () => {
    const parts = searchParts({ text: '## Files\nnone yet', gist: 'g' });
    expect(parts.at(-1)).toEqual({ section: 'Files', text: 'none yet' });
  });

  it('indexes the gist as written, or the one recap derives for a summary without one', () => {
    expect(indexedSource({ text: TEXT, gist: 'written' })?.gist).toBe('written');
    expect(indexedSource({ text: '## A\nThe parser reads the file.' })?.gist).toBeTruthy();
  });

  it('indexes nothing of a text a redaction emptied', () => {
    expect(indexedSource({ text: '', gist: '', redacted: true })).toBeUndefined();
  });

  it('reads an entry from its own text, its newest amendment, or nothing once redacted', () => {
    expect(indexedSeq({ seq: 5 })).toBe(5);
    expect(indexedSeq({ seq: 5, amendments: [9, 12] })).toBe(12);
    expect(indexedSeq({ seq: 5, amendments: [9], redacted: { seq: 10, time: 0 } })).toBeUndefined();
    // An amendment after the redaction gives the entry a text again.
    expect(indexedSeq({ seq: 5, amendments: [9, 12], redacted: { seq: 10, time: 0 } })).toBe(12);
  });

  it('shows the section that holds the most of the matched words, the gist only when no section holds more', () => {
    const parts = searchParts({ text: '## Design\nrefunds go back\n\n## State\nrefunds and the export folder', gist: 'refunds and export' });
    expect(matchedPart(parts, new Set(['refunds', 'export'])).section).toBe('State');
    expect(matchedPart(parts, new Set(['back'])).section).toBe('Design');
    expect(matchedPart(searchParts({ text: '## Design\nnothing', gist: 'refunds' }), new Set(['refunds'])).section).toBe(GIST_SECTION);
  });

  it('reads an identifier as one word, and punctuation as a separator', () => {
    expect(searchWords('export_folder, src/a.ts: héllo-world 42')).toEqual(['export_folder', 'src', 'a', 'ts', 'héllo', 'world', '42']);
  });
});

describe('snippetOf', () => {
  const long = `${'filler words here '.repeat(40)}the refund export runs nightly and each refund is logged ${'more filler text '.repeat(40)}`;

  it('cuts a window around the matched words, on one line, at word boundaries, marking what was cut', () => {
    const { snippet, terms } = snippetOf(long, new Set(['refund']));
    expect(snippet.length).toBeLessThanOrEqual(302);
    expect(snippet).toMatch(/^…\w/);
    expect(snippet).toMatch(/\w…$/);
    expect(snippet).toContain('the refund export runs nightly and each refund is logged');
    expect(terms).toEqual(['refund']);
  });

  it('names the matched words as they are written in it', () => {
    expect(snippetOf('Refund first.\n\nThen a refund.', new Set(['refund']))).toEqual({ snippet: 'Refund first. Then a refund.', terms: ['Refund', 'refund'] });
  });

  it('prefers the window holding the most of the different words matched', () => {
    const text = `alpha ${'x '.repeat(200)}alpha beta gamma ${'y '.repeat(200)}`;
    const { terms } = snippetOf(text, new Set(['alpha', 'beta', 'gamma']));
    expect(terms).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('shows the start of the text when no word matched', () => {
    expect(snippetOf('short text', new Set(['other']))).toEqual({ snippet: 'short text', terms: [] });
  });
});

describe('timelineWindow', () => {
  const entry = (seq: number, time: number): ChainEntry => ({ seq, time, level: 0, tokens: 10, coversThrough: seq - 1, gist: `#${seq}` });
  const chain = [entry(3, 100), entry(7, 200), entry(12, 300), entry(20, 400), entry(25, 500)];
  const seqs = (window: ChainEntry[] | undefined) => window?.map((e) => e.seq);

  it('shows the entries around summary N, oldest first', () => {
    expect(seqs(timelineWindow(chain, { seq: 12, before: 1, after: 1 }))).toEqual([7, 12, 20]);
    expect(seqs(timelineWindow(chain, { seq: 3, before: 3, after: 0 }))).toEqual([3]);
  });

  it('refuses a number that is none of the chain', () => {
    expect(timelineWindow(chain, { seq: 13, before: 1, after: 1 })).toBeUndefined();
    expect(timelineWindow([], { seq: 1, before: 1, after: 1 })).toBeUndefined();
  });

  it('centres on the newest entry written at or before a moment, or the oldest when all are later', () => {
    expect(seqs(timelineWindow(chain, { time: 350, before: 0, after: 1 }))).toEqual([12, 20]);
    expect(seqs(timelineWindow(chain, { time: 50, before: 2, after: 0 }))).toEqual([3]);
  });

  it('shows the newest without an entry or a moment, and nothing for an empty chain', () => {
    expect(seqs(timelineWindow(chain, { before: 2, after: 3 }))).toEqual([12, 20, 25]);
    expect(timelineWindow([], { before: 2, after: 3 })).toEqual([]);
  });
});
