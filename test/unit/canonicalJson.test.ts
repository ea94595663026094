// The chain's hashes cover the canonical JSON of each summary: `canonicalJson` must write,
// for any content, the text of its definition (keys sorted at every depth, undefined members
// left out), whichever way it makes it; `canonicallyEqual` must say what comparing two such
// texts says, and an entry's hash is SHA-256 over its link and that text.
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { canonicalJson, canonicallyEqual } from '../../src/events/canonical.js';
import { entryHash, recomputeHash } from '../../src/events/chain.js';
import type { SummaryAccepted } from '../../src/events/events.js';

/** The definition, as the chain has always hashed it. */
function definition(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(definition).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${definition(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

describe('canonicalJson', () => {
  it('writes the text of its definition for summaries and for every odd value', () => {
    const samples: unknown[] = [
      { text: 'Gist: a\n\n## Current State\n"q" \\ é 😀 \ud800', job: 'j', level: 0, sections: [{ tokens: 3, heading: 'Current State' }], coversThrough: 7, gistBy: undefined },
      { b: 1, a: { d: [1, 'x', null, true], c: -0 }, Z: NaN, é: Infinity, '': 'empty' },
      { 10: 'ten', 9: 'nine', a: 1 },
      { list: [1, undefined, 3], fn: () => 1 },
      { when: new Date(0), nested: { toJSON: () => 'replaced' } },
      JSON.parse('{"__proto__": {"x": 1}, "y": 2}'),
      Object.assign(Object.create(null) as object, { b: 2, a: 1 }),
      [{ b: 2, a: 1 }, [], {}],
      'a string',
      42,
      null,
    ];
    for (const sample of samples) expect(canonicalJson(sample)).toBe(definition(sample));
  });

  it('writes the text of its definition for random values, keys in any order', () => {
    const random = seeded(7);
    for (let i = 0; i < 3000; i += 1) {
      const value = randomValue(random, 3);
      expect(canonicalJson(value)).toBe(definition(value));
    }
  });
});

describe('canonicallyEqual', () => {
  it('says what comparing the canonical texts says, for random pairs alike and not', () => {
    const random = seeded(11);
    let equal = 0;
    for (let i = 0; i < 3000; i += 1) {
      const a = randomValue(random, 3);
      // Half the time a copy (its keys shuffled, undefined members added or one value changed), else another value.
      const b = random() < 0.5 ? variant(a, random) : randomValue(random, 3);
      const same = definition(a) === definition(b);
      if (same) equal += 1;
      expect(canonicallyEqual(a, b)).toBe(same);
      expect(canonicallyEqual(b, a)).toBe(same);
    }
    expect(equal).toBeGreaterThan(500);
  });

  it('says what comparing the texts says for odd values', () => {
    const odd: [unknown, unknown][] = [
      [NaN, null],
      [NaN, NaN],
      [0, -0],
      [{ a: undefined }, {}],
      [
        { a: 1, b: 2 },
        { b: 2, a: 1 },
      ],
      [
        { a: undefined, b: 1 },
        { b: 1, c: 2 },
      ],
      [
        [1, undefined],
        [1, null],
      ],
      // A hole, as in [1, , 3].
      [Object.assign(new Array<unknown>(3), { 0: 1, 2: 3 }), [1, undefined, 3]],
      [new Date(0), {}],
      [new Date(0), new Date(1)],
      [Object.assign(Object.create(null) as object, { a: 1 }), { a: 1 }],
      [Object.defineProperty({ a: 1 }, 'b', { value: 2, enumerable: false }), { a: 1 }],
      [{ f: () => 1 }, { f: () => 2 }],
      [['x'], { 0: 'x' }],
      ['1', 1],
      [true, 'true'],
    ];
    for (const [a, b] of odd) {
      expect(canonicallyEqual(a, b)).toBe(definition(a) === definition(b));
      expect(canonicallyEqual(b, a)).toBe(definition(a) === definition(b));
    }
  });
});

describe("a summary's hash", () => {
  it('is SHA-256 over the previous hash, a newline and the canonical JSON of the rest, as the chain has always been hashed', () => {
    const prevHash = 'ab'.repeat(32);
    const content = {
      job: 'j',
      level: 0,
      sections: [{ heading: 'Current State', tokens: 3 }],
      text: 'Gist: a\n\n## Current State\n"q" é 😀',
      tokens: 9,
      coversThrough: 7,
      time: 1_793_491_200_000,
    };
    const expected = createHash('sha256').update(prevHash).update('\n').update(definition(content)).digest('hex');
    expect(entryHash(prevHash, content)).toBe(expected);
    const stored: SummaryAccepted['data'] = { ...content, prevHash, hash: expected };
    expect(recomputeHash(stored)).toBe(expected);
    expect(recomputeHash({ ...stored, text: `${content.text} ` })).not.toBe(expected);
  });
});

/** A small deterministic generator (mulberry32), so a failure can be run again. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = ['a', 'b', 'job', 'text', 'Z', 'é', '', '10', '__proto__', 'sections', 'tokens'];
const LEAVES: unknown[] = [0, -0, 1.5, 42, NaN, Infinity, '', 'x', 'line\nbreak "q" \\', '\ud800', '😀', true, false, null, undefined, () => 1];

function randomValue(random: () => number, depth: number): unknown {
  const r = random();
  if (depth === 0 || r < 0.4) return LEAVES[Math.floor(random() * LEAVES.length)];
  if (r < 0.6) return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth - 1));
  if (r < 0.63) return new Date(Math.floor(random() * 3));
  const out: Record<string, unknown> = random() < 0.1 ? (Object.create(null) as Record<string, unknown>) : {};
  for (let n = Math.floor(random() * 5); n > 0; n -= 1) {
    const key = KEYS[Math.floor(random() * KEYS.length)]!;
    // Set as JSON.parse would: "__proto__" an own member, not the prototype.
    Object.defineProperty(out, key, { value: randomValue(random, depth - 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** A deep copy of `value`, its objects' keys shuffled, sometimes an undefined member added, a key renamed or one leaf changed. */
function variant(value: unknown, random: () => number): unknown {
  if (Array.isArray(value)) return value.map((item) => variant(item, random));
  if (value === null || typeof value !== 'object' || value instanceof Date) return random() < 0.05 ? LEAVES[Math.floor(random() * LEAVES.length)] : value;
  const entries = Object.entries(value);
  for (let i = entries.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [entries[i], entries[j]] = [entries[j]!, entries[i]!];
  }
  if (random() < 0.1) entries.push(['added', undefined]);
  if (random() < 0.1 && entries.length > 0) entries[0] = ['renamed', entries[0]![1]];
  const out: Record<string, unknown> = Object.getPrototypeOf(value) === null ? (Object.create(null) as Record<string, unknown>) : {};
  for (const [key, item] of entries) Object.defineProperty(out, key, { value: variant(item, random), enumerable: true, writable: true, configurable: true });
  return out;
}
