// The chain's hashes cover the canonical JSON of each summary: `canonicalJson` must write,
// for any content, the text of its definition (keys sorted at every depth, undefined members
// left out), whichever way it makes it.
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/events/canonical.js';

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
});
