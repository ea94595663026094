// The last resort for context over an agent's limit: cut, measured the way the agent measures.
import { describe, expect, it } from 'vitest';
import { cutToFit, fits, lengthIn } from '../../src/events/contextFit.js';

describe('context that must fit an agent', () => {
  it('measures characters as JavaScript counts them and bytes as UTF-8', () => {
    expect(lengthIn('é'.repeat(10), 'chars')).toBe(10);
    expect(lengthIn('é'.repeat(10), 'bytes')).toBe(20);
    expect(lengthIn('😀', 'chars')).toBe(2);
  });

  it('leaves a text that fits as it is, and any text when there is no limit', () => {
    expect(cutToFit('short', { max: 10, unit: 'chars' }, 'x')).toBe('short');
    expect(cutToFit('a'.repeat(50_000), undefined, 'x')).toHaveLength(50_000);
  });

  it('cuts a longer text to the limit, in characters or bytes, and says where the whole is', () => {
    for (const unit of ['chars', 'bytes'] as const) {
      const limit = { max: 10_000, unit };
      const cut = cutToFit('é'.repeat(30_000), limit, 'recap context prints it whole');
      expect(fits(cut, limit)).toBe(true);
      expect(lengthIn(cut, unit)).toBeGreaterThan(9_800);
      expect(cut).toMatch(/\[recap: cut at 10000 (characters|bytes); recap context prints it whole\]$/);
    }
  });

  it('never ends on half a surrogate pair', () => {
    const cut = cutToFit('😀'.repeat(10_000), { max: 10_001, unit: 'chars' }, 'more');
    expect(cut.split('\n\n')[0]).not.toMatch(/[\uD800-\uDBFF]$/);
    expect(cut.length).toBeLessThanOrEqual(10_001);
  });
});
