// recap eval's judging and scoring: a known corpus gives known figures, junk rejected counted
// as the positive, and an accepted summary gives the memory a next session is handed.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/events/config.js';
import { CaseError, parseCase } from '../../src/events/evalCorpus.js';
import { figures, judgeCase, score } from '../../src/events/evaluation.js';
import { tokenCounter } from '../../src/common/tokenCounter.js';
import { readCase, readCorpus, SMALL_CORPUS } from '../helpers/summaryCorpus.js';

const count = await tokenCounter(DEFAULT_CONFIG);
const NOW = Date.UTC(2026, 0, 1);
const cases = [...readCorpus('genuine', SMALL_CORPUS), ...readCorpus('junk', SMALL_CORPUS)];
const verdicts = cases.map((c) => judgeCase(c, count, NOW));
const result = score(verdicts);

describe('the known corpus (test/fixtures/eval-small)', () => {
  it('gives precision and recall of junk rejected: 3 of 4 rejected are junk, 3 of 4 junk rejected', () => {
    expect(result.all).toMatchObject({ genuine: 4, junk: 4, truePositives: 3, falsePositives: 1, falseNegatives: 1, precision: 0.75, recall: 0.75 });
  });

  it('gives each domain its own figures', () => {
    expect(result.byDomain.code).toMatchObject({ genuine: 2, junk: 3, truePositives: 2, falsePositives: 0, falseNegatives: 1, precision: 1, recall: 2 / 3 });
    expect(result.byDomain.research).toMatchObject({ genuine: 1, junk: 0, falsePositives: 1, precision: 0, recall: null });
    expect(Object.keys(result.byProfile)).toEqual(['default']);
  });

  it('names the genuine case rejected and the junk accepted', () => {
    expect(verdicts.filter((v) => v.accepted !== (v.label === 'genuine')).map((v) => v.name)).toEqual(['genuine/research-wrong-window.md', 'junk/code-passes.md']);
  });

  it("gives an accepted summary's memory in tokens, larger than the summary it shows, and none to a rejected one", () => {
    for (const v of verdicts) {
      if (v.accepted) expect(v.memoryTokens, v.name).toBeGreaterThan(v.tokens);
      else expect(v.memoryTokens, v.name).toBeUndefined();
    }
    const sizes = verdicts.flatMap((v) => (v.memoryTokens === undefined ? [] : [v.memoryTokens]));
    expect(result.all.memory).toEqual({ windows: 4, mean: Math.round(sizes.reduce((a, b) => a + b) / 4), max: Math.max(...sizes) });
  });
});

describe('judging', () => {
  it('is the same on a second run', () => {
    expect(cases.map((c) => judgeCase(c, count, NOW))).toEqual(verdicts);
  });

  it("judges a case by its profile's sections: a default-profile summary fails under support", () => {
    const c = readCase('genuine/legal-saas-contract.md');
    expect(judgeCase(c, count, NOW).accepted).toBe(true);
    expect(judgeCase({ ...c, profile: 'support' }, count, NOW).problems).toContain('missing section: Customer Issue');
  });

  it('judges an earlier summary submitted again as a resubmission', () => {
    const c = readCase('genuine/legal-saas-contract.md');
    expect(judgeCase({ ...c, earlier: [c.summary] }, count, NOW).problems).toEqual([expect.stringContaining('this summary repeats summary #100')]);
  });
});

describe('figures', () => {
  it('has no precision or recall when nothing was rejected and there was no junk', () => {
    expect(figures([])).toMatchObject({ precision: null, recall: null, memory: { windows: 0, mean: null, max: null } });
  });
});

describe('reading a case', () => {
  const none = () => {
    throw new Error('no window');
  };

  it('takes its profile and domain from its lines', () => {
    const c = parseCase('genuine/x.md', 'genuine', '@@@ profile support\n@@@ domain retail\n@@@ interaction\nhello\n@@@ summary\ntext', none);
    expect(c).toMatchObject({ profile: 'support', domain: 'retail', interactions: ['hello'], summary: 'text' });
  });

  it("takes its domain from its file's first word without a domain line", () => {
    expect(parseCase('junk/legal-nda.md', 'junk', '@@@ interaction\nhello\n@@@ summary\ntext', none).domain).toBe('legal');
  });

  it('refuses an unknown profile, naming the ones there are', () => {
    expect(() => parseCase('genuine/x.md', 'genuine', '@@@ profile memo\n@@@ interaction\nhi\n@@@ summary\nt', none)).toThrow(CaseError);
    expect(() => parseCase('genuine/x.md', 'genuine', '@@@ profile memo\n@@@ interaction\nhi\n@@@ summary\nt', none)).toThrow(/use one of default, handoff/);
  });

  it('refuses a case with no summary or no window', () => {
    expect(() => parseCase('genuine/x.md', 'genuine', '@@@ interaction\nhi', none)).toThrow(/no "@@@ summary" block/);
    expect(() => parseCase('genuine/x.md', 'genuine', '@@@ summary\nhi', none)).toThrow(/no "@@@ interaction" or "@@@ rolled" block/);
  });
});
