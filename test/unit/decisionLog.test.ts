// The decision log's domain: which lines of a summary are decisions, how entries are numbered
// and shown (newest first, an index past the whole ones), and what a rollup adds.
import { describe, expect, it } from 'vitest';
import {
  DECISION_MAX_CHARS,
  decisionLine,
  decisionLogView,
  decisionsIn,
  decisionSources,
  decisionsInForce,
  newDecisions,
  REASON_MAX_CHARS,
  type LoggedDecision,
} from '../../src/events/decisionLog.js';
import { T0 } from '../helpers/spec.js';

describe('a decision line', () => {
  it('is a decision and its reason, parted by an em dash, with or without a list marker', () => {
    expect(decisionLine('- Use pnpm — three services already lock with it')).toEqual({ decision: 'Use pnpm', reason: 'three services already lock with it' });
    expect(decisionLine('Keep the API—callers depend on it')).toEqual({ decision: 'Keep the API', reason: 'callers depend on it' });
    expect(decisionLine('2. Retry twice -- the upstream flakes')).toEqual({ decision: 'Retry twice', reason: 'the upstream flakes' });
    expect(decisionLine('* Cache for 5m – the quota is tight')).toEqual({ decision: 'Cache for 5m', reason: 'the quota is tight' });
  });

  it('parts at the first separator: the reason may hold dashes of its own', () => {
    expect(decisionLine('- Ship Friday — QA signs off Thursday — not earlier')).toEqual({ decision: 'Ship Friday', reason: 'QA signs off Thursday — not earlier' });
  });

  it('is not prose: no separator, a single hyphen, a hyphenated word, or an empty side', () => {
    for (const line of [
      'We asked whether to keep the cache and agreed to.',
      '- Pages 3 - 5 were rewritten',
      'The re-run passed on the second try',
      '- — no decision before the dash',
      '- Use pnpm —',
      '- Use pnpm — …',
      '',
    ]) {
      expect(decisionLine(line), line).toBeUndefined();
    }
  });

  it('is cut to its bounds however long the line is, saying so with an ellipsis', () => {
    const line = `- ${'decide '.repeat(5000)}— ${'because '.repeat(50_000)}`;
    const read = decisionLine(line)!;
    expect(read.decision.length).toBe(DECISION_MAX_CHARS);
    expect(read.reason.length).toBeLessThanOrEqual(REASON_MAX_CHARS);
    expect(read.decision.endsWith('…') && read.reason.endsWith('…')).toBe(true);
  });
});

const SUMMARY = [
  'Gist: the retry module',
  '## User Requests',
  '- Move retries out — taken from a request, not a decision section',
  '## Questions & Decisions',
  'The user asked whether the cache stays; it does.',
  '- Keep fetchWithBackoff public — three services call it',
  '```',
  '- Inside a fence — not a decision',
  '```',
  '<!-- - In a comment — not one either -->',
  '### Sub-heading — a heading is not a decision',
  '- Use pnpm — the lockfile is pnpm',
  '## Design Choices',
  '- Exponential backoff — the upstream asks for it',
  '## Key Decisions',
  '1. Retry twice — the upstream flakes',
].join('\n');

describe('decisions in a summary', () => {
  it('are the lines in the form of every decisions section, and no other section', () => {
    expect(decisionsIn(SUMMARY)).toEqual([
      { section: 'Questions & Decisions', decision: 'Keep fetchWithBackoff public', reason: 'three services call it' },
      { section: 'Questions & Decisions', decision: 'Use pnpm', reason: 'the lockfile is pnpm' },
      { section: 'Key Decisions', decision: 'Retry twice', reason: 'the upstream flakes' },
    ]);
  });

  it('are none in a summary without a decisions section', () => {
    expect(decisionsIn('## Sources Cited\n- A paper — it says so')).toEqual([]);
  });
});

describe('the log', () => {
  const at = (seq: number) => ({ seq, time: T0 + seq * 86_400_000 });

  it('numbers a summary’s decisions on from the last entry, each pointing to the summary', () => {
    const added = newDecisions(4, new Set(), { ...at(9), topic: 'api' }, '## Key Decisions\n- A — a\n- B — b');
    expect(added.map((e) => [e.n, e.seq, e.topic, e.decision])).toEqual([
      [5, 9, 'api', 'A'],
      [6, 9, 'api', 'B'],
    ]);
  });

  it('does not log again a decision stated in the same words, case and end punctuation aside', () => {
    const added = newDecisions(1, new Set(['use pnpm']), at(3), '## Key Decisions\n- Use PNPM. — still\n- Use  pnpm — twice\n- New one — yes\n- new ONE — again');
    expect(added.map((e) => e.decision)).toEqual(['New one']);
  });

  it('takes a summary’s decisions, and none of a rollup’s, which restate them', () => {
    expect(decisionSources({ seq: 7, level: 0 })).toEqual([7]);
    expect(decisionSources({ seq: 8, level: 1 })).toEqual([]);
  });

  it('takes an amended summary’s own text and each amendment’s, in log order', () => {
    expect(decisionSources({ seq: 7, level: 0, amendments: [12, 15] })).toEqual([7, 12, 15]);
  });

  const logged = (n: number, source: number): LoggedDecision => ({ n, ...at(7), source, section: 'Key Decisions', decision: `D${n}`, reason: 'why' });

  it('shows an amended summary’s decisions from its amendment in force, marked superseded by it', () => {
    const all = [logged(1, 7), logged(2, 12), logged(3, 15)];
    expect(decisionsInForce({ seq: 7, amendments: [12, 15] }, all)).toEqual([{ ...logged(3, 15), supersededBy: 15 }]);
    expect(decisionsInForce({ seq: 7 }, all)).toEqual([logged(1, 7)]);
  });

  it('shows none of a redacted summary’s decisions', () => {
    expect(decisionsInForce({ seq: 7, redacted: { seq: 20, time: T0 } }, [logged(1, 7)])).toEqual([]);
  });

  const entries = (n: number): LoggedDecision[] =>
    Array.from({ length: n }, (_, i) => ({ n: i + 1, ...at(i + 1), source: i + 1, section: 'Key Decisions', decision: `Decision ${i + 1}`, reason: 'why' }));

  it('is shown newest first, whole, with no index up to 100 entries', () => {
    const view = decisionLogView(entries(100));
    expect(view.total).toBe(100);
    expect(view.decisions.map((e) => e.n).slice(0, 2)).toEqual([100, 99]);
    expect(view.decisions).toHaveLength(100);
    expect(view.index).toBeUndefined();
  });

  it('past 100 entries shows the older ones as one index line each, newest first', () => {
    const view = decisionLogView(entries(103));
    expect(view.decisions.map((e) => e.n).at(-1)).toBe(4);
    expect(view.index).toEqual(['#3 [2026-11-25] Decision 3 (summary #3)', '#2 [2026-11-24] Decision 2 (summary #2)', '#1 [2026-11-23] Decision 1 (summary #1)']);
  });

  it('shows as many whole as asked, the rest in the index', () => {
    const view = decisionLogView(entries(5), 2);
    expect(view.decisions.map((e) => e.n)).toEqual([5, 4]);
    expect(view.index).toHaveLength(3);
  });
});
