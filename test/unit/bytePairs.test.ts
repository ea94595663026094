import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countTokens as o200kLibrary } from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens as cl100kLibrary } from 'gpt-tokenizer/encoding/cl100k_base';
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { BytePairRanks, bytePairCounter } from '../../src/events/bytePairs.js';

const vocabulary = (name: string) => readFileSync(createRequire(import.meta.url).resolve(`gpt-tokenizer/data/${name}.tiktoken`));
const o200kRanks = BytePairRanks.fromTiktoken(vocabulary('o200k_base'));
const o200k = bytePairCounter(o200kRanks, O200K_TOKEN_SPLIT_REGEX);
const cl100k = bytePairCounter(BytePairRanks.fromTiktoken(vocabulary('cl100k_base')), CL100K_TOKEN_SPLIT_REGEX);
const asText = { disallowedSpecial: new Set<string>() };

/** The repository's docs and the summary corpus in 2,000-character pieces, and hard cases. */
function corpus(): string[] {
  const root = join(import.meta.dirname, '..', '..');
  const files = ['README.md', 'docs/ARCHITECTURE.md', 'package-lock.json', 'src/events/bytePairs.ts'].map((f) => join(root, f));
  const fixtures = join(root, 'test', 'fixtures', 'summaries');
  for (const name of readdirSync(fixtures, { recursive: true, encoding: 'utf8' })) if (name.endsWith('.md')) files.push(join(fixtures, name));
  const texts: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (let at = 0; at < text.length; at += 2000) texts.push(text.slice(at, at + 2000));
  }
  texts.push(
    '部署完成了吗？🎉👩‍💻 はい、終わりました。테스트도 통과했습니다 ✅ مرحبا Привет',
    'a lone surrogate \uD800 here, another \uDC00x, and U+FFFD itself: \uFFFD',
    '<|endoftext|> <|im_start|>user<|im_sep|> special tokens are text to recap',
    '1234567890 3.14159 0xdeadbeef 2026-11-28T06:00:00Z',
    '   \n\n\t  lots   of    spaces   \r\n\r\n',
    String.fromCharCode(...Array.from({ length: 400 }, (_, i) => 0x20 + ((i * 7919) % 0x2fe0))),
  );
  return texts;
}

describe('byte-pair counts from compact tables', () => {
  const texts = corpus();

  it('given docs, JSON, code, summaries and mixed scripts, when counted with o200k_base, then every count is gpt-tokenizer countTokens', () => {
    expect(texts.length).toBeGreaterThan(200);
    const differing = texts.filter((text) => o200k(text) !== o200kLibrary(text, asText));
    expect(differing).toEqual([]);
  });

  it('given the same texts, when counted with cl100k_base, then every count is gpt-tokenizer countTokens', () => {
    const differing = texts.filter((text) => cl100k(text) !== cl100kLibrary(text, asText));
    expect(differing).toEqual([]);
  });

  it('given a word counted twice, when the second count comes from the remembered merges, then it is the same', () => {
    const word = 'antidisestablishmentarianism';
    expect(o200k(word)).toBe(o200kLibrary(word));
    expect(o200k(`${word} ${word}`)).toBe(o200kLibrary(`${word} ${word}`));
  });

  it('given o200k_base, when its tables are built, then they hold every rank in under 8 MB', () => {
    expect(o200kRanks.size).toBe(199_998);
    expect(o200kRanks.bytes).toBeLessThan(8 * 1024 * 1024);
  });

  it('given a vocabulary line without a rank or with a non-base64 character, when read, then the error names the line', () => {
    const bytes = (text: string) => new TextEncoder().encode(text);
    expect(() => BytePairRanks.fromTiktoken(bytes('IQ== 0\nIg==\n'))).toThrow('line 2 of the vocabulary is not "<base64> <rank>"');
    expect(() => BytePairRanks.fromTiktoken(bytes('IQ== 0\nI*== 1\n'))).toThrow('line 2 of the vocabulary has a character that is not base64');
    expect(() => BytePairRanks.fromTiktoken(bytes('IQ== x\n'))).toThrow('line 1 of the vocabulary has a rank that is not a number');
  });

  it('given a vocabulary that is a view into a larger buffer (a pooled Buffer), when read, then only its own bytes are', () => {
    const file = new TextEncoder().encode('YQ== 0\nYg== 1\n');
    const whole = new Uint8Array(file.length + 8).fill(0x0a);
    whole.set(file, 4);
    const ranks = BytePairRanks.fromTiktoken(whole.subarray(4, 4 + file.length));
    expect(ranks.size).toBe(2);
    expect(ranks.rankOf(new TextEncoder().encode('b'), 0, 1)).toBe(1);
  });

  it('given a tiny vocabulary, when a piece is not one token, then its bytes merge lowest rank first', () => {
    // a b c are ranks 0-2, "bc" 3, "ab" 4: "abc" merges b+c first and ends as a, bc (2);
    // "abab" merges into ab, ab (2); "cab" is c, ab (2); "x" is no token at all but a byte (1).
    const base64 = (text: string) => Buffer.from(text).toString('base64');
    const file = ['a', 'b', 'c', 'bc', 'ab'].map((token, rank) => `${base64(token)} ${rank}`).join('\n');
    const ranks = BytePairRanks.fromTiktoken(new TextEncoder().encode(file));
    expect(ranks.rankOf(new TextEncoder().encode('bc'), 0, 2)).toBe(3);
    expect(ranks.rankOf(new TextEncoder().encode('abc'), 0, 3)).toBe(-1);
    const count = bytePairCounter(ranks, /\S+/u);
    expect(count('abc')).toBe(2);
    expect(count('abab cab')).toBe(4);
    expect(count('aaaa')).toBe(4);
  });

  it('given the tables a build writes, when read back for the same file, then they count every text as the file does', () => {
    const file = vocabulary('o200k_base');
    const source = createHash('sha256').update(file).digest('hex');
    const tables = o200kRanks.tables(source);
    // As a file is read: a Buffer of its own, and one whose numbers start off a multiple of 4.
    const offset = Buffer.alloc(tables.length + 1);
    offset.set(tables, 1);
    for (const bytes of [Buffer.from(tables), offset.subarray(1)]) {
      const ranks = BytePairRanks.fromTables(bytes, source)!;
      expect(ranks.size).toBe(o200kRanks.size);
      const count = bytePairCounter(ranks, O200K_TOKEN_SPLIT_REGEX);
      for (const text of corpus()) expect(count(text)).toBe(o200k(text));
    }
  });

  it('given tables made from another file, cut short, of another format, or not tables, when read, then none are used', () => {
    const source = 'a'.repeat(64);
    const tables = BytePairRanks.fromTiktoken(new TextEncoder().encode('YQ== 0\nYg== 1\n')).tables(source);
    expect(BytePairRanks.fromTables(tables, source)?.size).toBe(2);
    expect(BytePairRanks.fromTables(tables, 'b'.repeat(64))).toBeUndefined();
    expect(BytePairRanks.fromTables(tables.subarray(0, tables.length - 1), source)).toBeUndefined();
    expect(BytePairRanks.fromTables(new Uint8Array([...tables, 0]), source)).toBeUndefined();
    const otherFormat = tables.slice();
    otherFormat[10] = 0x32;
    expect(BytePairRanks.fromTables(otherFormat, source)).toBeUndefined();
    expect(BytePairRanks.fromTables(new TextEncoder().encode('YQ== 0\nYg== 1\n'), source)).toBeUndefined();
    // A hash table with no free slot, where a lookup of a missing token would never end: 2 slots for 2 tokens.
    const full = new Uint8Array([...tables.subarray(0, 88 + 4 * 5), 1, 0, 0, 0, 2, 0, 0, 0, ...tables.subarray(tables.length - 2)]);
    new DataView(full.buffer).setUint32(16, 2, true);
    expect(BytePairRanks.fromTables(full, source)).toBeUndefined();
    expect(() => BytePairRanks.fromTiktoken(new Uint8Array()).tables('not a hash')).toThrow('hex SHA-256');
  });
});
