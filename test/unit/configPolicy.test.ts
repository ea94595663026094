// Which way each configuration key weakens the gate, and what applies while a project
// file's change waits for the user's approval.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/events/config.js';
import { configChanges, direction, guardedValues } from '../../src/events/configPolicy.js';

const base: Record<string, unknown> = { ...DEFAULT_CONFIG };

describe('direction: stricter or weaker, per key', () => {
  const cases: [string, unknown, 'stricter' | 'weaker'][] = [
    ['TOKEN_THRESHOLD', 100, 'stricter'],
    ['TOKEN_THRESHOLD', 5000, 'weaker'],
    ['SUMMARY_MIN_TOKENS', 300, 'stricter'],
    ['SUMMARY_MIN_TOKENS', 1, 'weaker'],
    ['SUMMARY_MAX_TOKENS', 800, 'stricter'],
    ['SUMMARY_MAX_TOKENS', 100_000, 'weaker'],
    ['MIN_TOKENS_PER_SECTION', 80, 'stricter'],
    ['MIN_TOKENS_PER_SECTION', 0, 'weaker'],
    ['SECTION_MAX_TOKENS', 400, 'stricter'],
    ['REQUIRED_SECTIONS', [...DEFAULT_CONFIG.REQUIRED_SECTIONS, 'Risks'], 'stricter'],
    ['REQUIRED_SECTIONS', ['Current State'], 'weaker'],
    ['REQUIRED_SECTIONS', ['Anything'], 'weaker'],
    ['BYPASS_PREFIXES', ['[PLUGIN-LOCK]'], 'weaker'],
    ['COUNT_KINDS', ['prompt', 'qa', 'assistant'], 'stricter'],
    ['COUNT_KINDS', [], 'weaker'],
    ['COUNT_KINDS', ['prompt'], 'weaker'],
    ['ON_DAEMON_DOWN', 'closed', 'stricter'],
    ['JOB_SCOPE', 'session', 'weaker'],
    ['PROFILE', 'research', 'weaker'],
    ['TOKEN_ENCODING', 'words', 'weaker'],
    ['TOKEN_WORD_RATIO', 5, 'weaker'],
    ['ROLLUP_EVERY', 3, 'stricter'],
    ['TRIGGER_MAX_INTERACTIONS', 10, 'stricter'],
    ['TRIGGER_CONTEXT_PERCENT', 50, 'stricter'],
    ['CONTEXT_WINDOW', 100_000, 'stricter'],
    ['CONTEXT_WINDOW', 200_000, 'stricter'],
    ['CONTEXT_WINDOW', 1_000_000, 'weaker'],
  ];
  for (const [key, to, expected] of cases) {
    it(`given ${key}=${JSON.stringify(base[key])}, when a file asks for ${JSON.stringify(to)}, then it is ${expected}`, () => {
      expect(direction(key, base[key], to)).toBe(expected);
    });
  }

  it('given a switched-on limit (0 is off), when a file turns it off, then it is weaker; when it lowers it, stricter', () => {
    expect(direction('ROLLUP_EVERY', 3, 0)).toBe('weaker');
    expect(direction('ROLLUP_EVERY', 3, 5)).toBe('weaker');
    expect(direction('ROLLUP_EVERY', 3, 2)).toBe('stricter');
    expect(direction('SECTION_MAX_TOKENS', 400, 0)).toBe('weaker');
  });

  it("given a CONTEXT_WINDOW set, when a file goes back to 0 (the model's own, perhaps 1,000,000), then it is weaker", () => {
    expect(direction('CONTEXT_WINDOW', 150_000, 0)).toBe('weaker');
    expect(direction('CONTEXT_WINDOW', 150_000, 120_000)).toBe('stricter');
    expect(direction('CONTEXT_WINDOW', 150_000, 180_000)).toBe('weaker');
  });

  it('given ON_DAEMON_DOWN=closed, when a file says open, then it is weaker', () => {
    expect(direction('ON_DAEMON_DOWN', 'closed', 'open')).toBe('weaker');
  });

  it('given a key recap does not know how to order (one added later), when it changes either way, then it is weaker', () => {
    expect(direction('SUMMARY_GROUNDING', true, false)).toBe('weaker');
    expect(direction('SUMMARY_GROUNDING', false, true)).toBe('weaker');
    expect(direction('SUMMARY_GROUNDING', undefined, 'on')).toBe('weaker');
  });

  it('given the same value (lists compared item by item), then nothing changes', () => {
    expect(direction('TOKEN_THRESHOLD', 500, 500)).toBe('same');
    expect(direction('COUNT_KINDS', ['prompt', 'qa'], ['prompt', 'qa'])).toBe('same');
    expect(configChanges(base, { ...base })).toEqual([]);
  });

  it('given a value of the wrong type for its order, then it is weaker, never stricter', () => {
    expect(direction('TOKEN_THRESHOLD', 500, '100')).toBe('weaker');
    expect(direction('COUNT_KINDS', ['prompt'], 'prompt')).toBe('weaker');
  });
});

describe('guardedValues: what applies while a change waits', () => {
  it('given the approved values, when a file raises the threshold and adds a section, then the threshold is held and the section applies', () => {
    const wanted = { ...base, TOKEN_THRESHOLD: 5000, REQUIRED_SECTIONS: [...DEFAULT_CONFIG.REQUIRED_SECTIONS, 'Risks'] };
    const { values, held } = guardedValues(base, wanted);
    expect(values.TOKEN_THRESHOLD).toBe(500);
    expect(values.REQUIRED_SECTIONS).toEqual(wanted.REQUIRED_SECTIONS);
    expect(held).toEqual([{ key: 'TOKEN_THRESHOLD', from: 500, to: 5000, direction: 'weaker' }]);
  });

  it('given a file that only makes the gate stricter, then all of it applies and nothing is held', () => {
    const wanted = { ...base, TOKEN_THRESHOLD: 100, MIN_TOKENS_PER_SECTION: 70, ON_DAEMON_DOWN: 'closed' };
    expect(guardedValues(base, wanted)).toEqual({ values: wanted, held: [] });
  });

  it('given a key the file drops (an unknown key the approved values had), then the approved value stays', () => {
    const { values, held } = guardedValues({ ...base, SUMMARY_GROUNDING: true }, base);
    expect(values.SUMMARY_GROUNDING).toBe(true);
    expect(held.map((h) => h.key)).toEqual(['SUMMARY_GROUNDING']);
  });

  it('is deterministic: the same inputs twice give the same answer', () => {
    const wanted = { ...base, TOKEN_THRESHOLD: 5000, BYPASS_PREFIXES: ['x'], COUNT_KINDS: ['prompt', 'qa', 'tool'] };
    expect(guardedValues(base, wanted)).toEqual(guardedValues(base, wanted));
  });
});
