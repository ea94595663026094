// The Glob matcher for one path segment: what it matches, what it refuses, and patterns that
// made the regex it replaces backtrack for minutes (each must simply return).
import { describe, expect, it } from 'vitest';
import { globReaches, segmentMatches } from '../../src/events/glob.js';

describe('segmentMatches', () => {
  const cases: [string, string, boolean][] = [
    ['*', 'anything', true],
    ['*', '', true],
    ['a*c', 'abbbc', true],
    ['a*c', 'abbbd', false],
    ['?', 'x', true],
    ['?', '', false],
    ['??', 'x', false],
    ['[abc]x', 'bx', true],
    ['[abc]x', 'dx', false],
    ['[a-z]*', 'recap', true],
    ['[!a-z]*', 'recap', false],
    ['[^a-z]*', 'Recap', true],
    ['[]]', ']', true],
    ['[!]]', 'a', true],
    ['{data,log}', 'data', true],
    ['{data,log}', 'logs', false],
    ['re{c,d}ap*', 'recap-old', true],
    ['{a,}b', 'b', true],
    // Malformed: read as the shell reads them, literally.
    ['[', '[', true],
    ['[abc', '[abc', true],
    ['[abc', 'a', false],
    ['{a,b', '{a,b', true],
    ['x\\*', 'x\\yz', true],
    ['.recap', '.recap', true],
    ['.recap', 'xrecap', false],
  ];
  for (const [glob, segment, expected] of cases) {
    it(`${JSON.stringify(glob)} ${expected ? 'matches' : 'does not match'} ${JSON.stringify(segment)}`, () => {
      expect(segmentMatches(glob, segment)).toBe(expected);
    });
  }

  it('returns at once for patterns that made the old regex backtrack', () => {
    const a40 = 'a'.repeat(40);
    expect(segmentMatches(`${'*'.repeat(40)}x`, a40)).toBe(false);
    expect(segmentMatches(`${'*a'.repeat(40)}x`, a40)).toBe(false);
    expect(segmentMatches(`${'?*'.repeat(40)}`, a40)).toBe(true);
    expect(segmentMatches(`${'{a,aa,aaa}'.repeat(30)}x`, 'a'.repeat(200))).toBe(false);
    expect(segmentMatches(`${'*?'.repeat(50_000)}`, 'a'.repeat(10_000))).toBe(false);
  });
});

describe('globReaches', () => {
  it('reaches a protected folder named segment by segment, or a file inside it', () => {
    expect(globReaches('/home/dev/.local/share/recap/**', '/home/dev/.local/share/recap')).toBe(true);
    expect(globReaches('/home/*/.local/*/rec?p/log', '/home/dev/.local/share/recap')).toBe(true);
    expect(globReaches('/home/dev/.local/share/[!r]*', '/home/dev/.local/share/recap')).toBe(false);
  });

  it('leaves a broad ** search of a parent alone', () => {
    expect(globReaches('/home/dev/**/*.ts', '/home/dev/.local/share/recap')).toBe(false);
  });

  it('a pathological pattern against recap paths returns', () => {
    expect(globReaches(`/${'*'.repeat(40)}x/${'*'.repeat(40)}x/data`, `/tmp/${'a'.repeat(40)}/data`)).toBe(false);
  });
});
