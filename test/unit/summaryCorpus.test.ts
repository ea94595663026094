// The validator against the corpora: every genuine summary passes, every piece of junk is
// rejected with the message meant for it. False rejections are failures as much as false
// acceptances.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/events/config.js';
import { validateSummary } from '../../src/events/summaryValidator.js';
import { judgeCase } from '../../src/events/evaluation.js';
import { tokenCounter } from '../../src/common/tokenCounter.js';
import { readCorpus, type Case } from '../helpers/summaryCorpus.js';
import { goodSummary, prose } from '../helpers/text.js';
import { PROFILES } from '../../src/events/config.js';

const count = await tokenCounter(DEFAULT_CONFIG);

const NOW = Date.UTC(2026, 0, 1);

/** Judged as the daemon judges a submission (recap eval's path). */
const problems = (c: Case) => judgeCase(c, count, NOW).problems;

const genuine = readCorpus('genuine');
const junk = readCorpus('junk');

describe('the genuine corpus', () => {
  it('has at least 30 summaries, each with its window', () => {
    expect(genuine.length).toBeGreaterThanOrEqual(30);
    for (const c of genuine) expect(c.interactions.length + c.rolled.length, c.name).toBeGreaterThan(0);
  });

  it.each(genuine.map((c) => [c.name, c] as const))('%s passes', (_name, c) => {
    expect(problems(c)).toEqual([]);
  });
});

describe('the junk corpus', () => {
  it('has at least 30 cases, each naming the rejection it expects', () => {
    expect(junk.length).toBeGreaterThanOrEqual(30);
    for (const c of junk) expect(c.expect.length, c.name).toBeGreaterThan(0);
  });

  it.each(junk.map((c) => [c.name, c] as const))('%s is rejected with the right message', (_name, c) => {
    const found = problems(c);
    for (const fragment of c.expect)
      expect(
        found.some((p) => p.includes(fragment)),
        `no problem says "${fragment}": ${JSON.stringify(found)}`,
      ).toBe(true);
  });
});

describe("the test helpers' goodSummary", () => {
  const window = { material: [prose(15), prose(15)], what: 'interactions' };

  it('passes for each round, each one checked against the three rounds before it', () => {
    for (let round = 0; round < 8; round += 1) {
      const earlier = [round - 3, round - 2, round - 1].filter((r) => r >= 0).map((r) => ({ seq: r, text: goodSummary(undefined, r) }));
      expect(validateSummary(goodSummary(undefined, round), DEFAULT_CONFIG, count, { ...window, earlier }).problems, `round ${round}`).toEqual([]);
    }
  });

  it.each(Object.entries(PROFILES))('passes in the %s profile', (_name, sections) => {
    const rules = { ...DEFAULT_CONFIG, REQUIRED_SECTIONS: [...sections], SUMMARY_MIN_TOKENS: 100 };
    expect(validateSummary(goodSummary(sections), rules, count, { ...window, earlier: [] }).problems).toEqual([]);
  });

  it('is rejected when resubmitted at the next trip', () => {
    const earlier = [{ seq: 7, text: goodSummary() }];
    expect(validateSummary(goodSummary(), DEFAULT_CONFIG, count, { ...window, earlier }).problems).toEqual([expect.stringContaining('this summary repeats summary #7')]);
  });
});
