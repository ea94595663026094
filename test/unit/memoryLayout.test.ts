// The memory's three parts, as rules of the domain: the newest summaries whole within
// CONTEXT_BUDGET, the newest summary's files as the daemon found them within
// REF_READ_BUDGET, and an index of every other entry within INDEX_BUDGET. Given a chain,
// when the memory is rendered, then what it holds and what it costs.
import { describe, expect, it } from 'vitest';
import type { FileReference } from '../../src/events/events.js';
import { fittedBudget } from '../../src/events/gateMessages.js';
import { filesOwner, memoryText, type HandedFile, type MemoryBudget } from '../../src/events/memory.js';
import type { ChainEntry } from '../../src/events/jobState.js';
import { wordsCounter } from '../../src/events/tokens.js';
import { chainOf } from '../helpers/spec.js';

const count = wordsCounter(1);
const budget: MemoryBudget = { summaries: 2000, index: 1000, files: 4000 };

describe('the index', () => {
  it('given 200 summaries, when the memory is rendered, then the newest are whole and an index of the older ones fits its budget, newest first', () => {
    const { state, texts } = chainOf(200);
    const memory = memoryText(state, budget, count, texts, 'recap');
    const newest = state.chain.at(-1)!;
    expect(memory).toContain(`### Summary #${newest.seq},`);
    expect(memory).toContain('detail199');
    const index = memory.slice(memory.indexOf('Index of the '));
    expect(count(index)).toBeLessThanOrEqual(1000);
    expect(index).toMatch(/^Index of the \d+ summaries not shown whole, newest first \(recap show N prints summary #N whole\):/);
    const numbers = [...index.matchAll(/^#(\d+) 2026-11-22 — (.+)$/gm)].map((m) => Number(m[1]));
    expect(numbers.length).toBeGreaterThan(10);
    expect(numbers).toEqual([...numbers].sort((a, b) => b - a));
    // Every entry is whole or listed or counted as left out, and none twice.
    const whole = [...memory.matchAll(/^### Summary #(\d+),/gm)].map((m) => Number(m[1]));
    expect(whole.filter((n) => numbers.includes(n))).toEqual([]);
    const left = Number(/\((\d+) older not listed: recap chain lists them all\.\)/.exec(index)?.[1] ?? 0);
    expect(whole.length + numbers.length + left).toBe(200);
    // The index line is the entry's gist.
    const entry = state.chain.find((e) => e.seq === numbers[0])!;
    expect(index).toContain(`#${entry.seq} 2026-11-22 — ${entry.gist}`);
  });

  it('marks an amended entry in the index', () => {
    const { state, texts } = chainOf(200);
    const listed = [...memoryText(state, budget, count, texts, 'recap').matchAll(/^#(\d+) 2026-11-22 — /gm)].map((m) => Number(m[1]));
    const [amended, other] = listed.slice(0, 2).map((seq) => state.chain.find((e) => e.seq === seq)!) as [ChainEntry, ChainEntry];
    amended.amendments = [9999];
    const index = memoryText(state, budget, count, texts, 'recap');
    expect(index).toContain(`#${amended.seq} 2026-11-22 (amended) — ${amended.gist}`);
    expect(index).toContain(`#${other.seq} 2026-11-22 — ${other.gist}`);
  });

  it('given INDEX_BUDGET=0, then there is no index', () => {
    const { state, texts } = chainOf(30);
    expect(memoryText(state, { ...budget, index: 0 }, count, texts, 'recap')).not.toContain('Index of the');
  });

  it('never goes over the sum of its budgets, however small', () => {
    const { state, texts } = chainOf(40);
    for (const n of [1, 5, 20, 100, 400]) {
      const small = { summaries: n, index: n, files: n };
      expect(count(memoryText(state, small, count, texts, 'recap'))).toBeLessThanOrEqual(3 * n);
    }
  });
});

describe('the files', () => {
  const ref = (mode: 'read' | 'ref', path: string, why: string, more: Partial<FileReference> = {}): FileReference => ({
    mode,
    path,
    why,
    sha256: 'a'.repeat(64),
    tokens: 5,
    ...more,
  });

  it('given the newest summary named files, when the memory is rendered, then each read shows its contents marked, and each ref its reason', () => {
    const { state, texts } = chainOf(3);
    const files: HandedFile[] = [
      { ref: ref('read', 'src/app.ts', 'the loop', { start: 2, end: 3 }), status: 'changed', content: 'retry(3)\nbackoff(2)' },
      { ref: ref('read', 'src/db.ts', 'the schema'), status: 'unchanged', content: 'create table t' },
      { ref: ref('read', 'src/old.ts', 'gone now'), status: 'gone' },
      { ref: ref('read', 'src/link.ts', 'a link'), status: 'refused', why: "Read names recap's event log" },
      { ref: ref('ref', 'docs/plan.md', 'where the plan is'), status: 'named' },
    ];
    const memory = memoryText(state, budget, count, texts, 'recap', { seq: 6, files });
    expect(memory).toContain('Files named by summary #6');
    expect(memory).toContain('- read src/app.ts:2-3 — the loop [changed since the summary: its contents now]\n```\nretry(3)\nbackoff(2)\n```');
    expect(memory).toContain('- read src/db.ts — the schema [unchanged since the summary]\n```\ncreate table t\n```');
    expect(memory).toContain('- read src/old.ts — gone now [gone: the file no longer exists]');
    expect(memory).toContain("- read src/link.ts — a link [not handed over: Read names recap's event log]");
    expect(memory).not.toContain('event log]\n```');
    expect(memory).toContain('- ref docs/plan.md — where the plan is');
  });

  it('given a file grown past the files budget since, then its contents are cut to fit, saying so', () => {
    const { state, texts } = chainOf(1);
    const content = Array.from({ length: 400 }, (_, i) => `line ${i} of the grown file`).join('\n');
    const files: HandedFile[] = [{ ref: ref('read', 'src/big.ts', 'grew'), status: 'changed', content }];
    const memory = memoryText(state, { ...budget, files: 300 }, count, texts, 'recap', { seq: 2, files });
    const part = memory.slice(memory.indexOf('Files named by'));
    expect(count(part)).toBeLessThanOrEqual(300);
    expect(part).toMatch(/\[cut after \d+ of 400 lines: read the file for the rest\]/);
  });

  it('given only the head of a file within the budget, then it says how many lines the file has', () => {
    const { state, texts } = chainOf(1);
    const files: HandedFile[] = [{ ref: ref('read', 'src/big.ts', 'grew'), status: 'changed', content: 'line 1\nline 2', lines: 900 }];
    const memory = memoryText(state, budget, count, texts, 'recap', { seq: 2, files });
    expect(memory).toContain('line 1\nline 2\n```\n[cut after 2 of 900 lines: read the file for the rest]');
  });

  it('hands over the files of the newest summary that names any', () => {
    const { state } = chainOf(3);
    expect(filesOwner(state)).toBeUndefined();
    state.chain[1]!.refs = [ref('ref', 'a.ts', 'why')];
    expect(filesOwner(state)?.seq).toBe(state.chain[1]!.seq);
  });
});

describe("sharing an agent's limit", () => {
  const limit = { max: 10_000, unit: 'chars' as const };
  const text = (n: number) => 'x'.repeat(n);

  it('given parts within their shares, then each keeps its budget', () => {
    const parts = { summaries: text(4000), files: text(2000), index: text(1000) };
    expect(fittedBudget(budget, parts, limit)).toEqual(budget);
  });

  it('given files over their share, then only the files shrink, into the room the others leave', () => {
    const parts = { summaries: text(3000), files: text(20_000), index: text(1000) };
    const fitted = fittedBudget(budget, parts, limit);
    expect(fitted.summaries).toBe(budget.summaries);
    expect(fitted.index).toBe(budget.index);
    // (10,000 - 64 - 3,000 - 1,000) / 20,000 of the files' budget, with a tenth to spare.
    expect(fitted.files).toBe(Math.floor(((4000 * (10_000 - 64 - 4000)) / 20_000) * 0.9));
  });

  it('given every part over, then each gets its share: summaries half, files three tenths, index a fifth', () => {
    const parts = { summaries: text(30_000), files: text(30_000), index: text(30_000) };
    const fitted = fittedBudget(budget, parts, limit);
    const room = 10_000 - 64;
    expect(fitted).toEqual({
      summaries: Math.floor(((2000 * room * 0.5) / 30_000) * 0.9),
      files: Math.floor(((4000 * room * 0.3) / 30_000) * 0.9),
      index: Math.floor(((1000 * room * 0.2) / 30_000) * 0.9),
    });
  });
});
