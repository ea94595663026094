// The index of summaries' words: one document per summary, replaced by its amendment's text
// and removed on redaction; prefixes of four letters or more, typos in words of seven or more.
import { describe, expect, it } from 'vitest';
import { SummaryIndex } from '../../src/daemon/summaryIndex.js';

const summary = (state: string, gist = 'work on the parser') => ({ text: `## Design\nThe parser is strict.\n\n## State\n${state}`, gist });

describe('the summary index', () => {
  it('finds a summary by a word of any section, once, with the words that matched', () => {
    const index = new SummaryIndex();
    index.put('app', 3, summary('refunds go back to the card'));
    index.put('app', 7, summary('exports land in the folder'));
    expect(index.search('refunds')).toMatchObject([{ job: 'app', seq: 3, terms: ['refunds'] }]);
  });

  it('ranks the summary whose gist names the word before one that mentions it in a section', () => {
    const index = new SummaryIndex();
    index.put('app', 3, summary('the refund path is untouched'));
    index.put('app', 7, summary('nothing new', 'refund path rewritten'));
    expect(index.search('refund').map((m) => m.seq)).toEqual([7, 3]);
  });

  it('replaces a summary’s words with its amendment’s', () => {
    const index = new SummaryIndex();
    index.put('app', 3, summary('wombats everywhere'));
    index.put('app', 3, summary('capybaras everywhere'));
    expect(index.search('wombats')).toEqual([]);
    expect(index.search('capybaras').map((m) => m.seq)).toEqual([3]);
  });

  it('forgets a redacted summary, and one put with its redacted copy', () => {
    const index = new SummaryIndex();
    index.put('app', 3, summary('wombats everywhere'));
    index.put('app', 5, summary('wombats here too'));
    index.remove(3);
    index.put('app', 5, { text: '', gist: '', redacted: true });
    expect(index.search('wombats')).toEqual([]);
  });

  it('matches prefixes of four letters or more, and a typo only in a word of seven or more', () => {
    const index = new SummaryIndex();
    index.put('app', 3, summary('the configuration reloads'));
    expect(index.search('confi').map((m) => m.seq)).toEqual([3]);
    expect(index.search('configuraton').map((m) => m.seq)).toEqual([3]);
    expect(index.search('rel')).toEqual([]);
  });

  it('keeps only the summaries the filter keeps', () => {
    const index = new SummaryIndex();
    index.put('app', 3, summary('refunds'));
    index.put('web', 4, summary('refunds'));
    expect(index.search('refunds', (_, job) => job === 'web').map((m) => m.seq)).toEqual([4]);
  });
});
