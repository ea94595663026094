// Requests of the hot ops (check, hook) pass a hand-written check before zod: it must accept
// exactly what the schema accepts, give the same value, and leave the messages to zod.
import { describe, expect, it } from 'vitest';
import { MAX_QUERY_WORDS, parseRequest, requestSchemas, type RequestOf } from '../../src/protocol/protocol.js';
import { describeIssues } from '../../src/common/zodIssues.js';

const check = { id: 1, op: 'check', job: 'j', tool: 'Read' };

const checks: Record<string, unknown>[] = [
  check,
  { ...check, input: { file_path: '/a' }, session: 's', agent: 'a', contextTokens: 0, cwd: '/w', project: '/p' },
  { ...check, input: null },
  { ...check, extra: 'dropped' },
  { ...check, id: 'text-id' },
  { ...check, job: '' },
  { ...check, job: 'x'.repeat(257) },
  { ...check, job: 'x'.repeat(256) },
  { ...check, job: 'a\nb' },
  { ...check, job: 'a\u007fb' },
  { ...check, job: 7 },
  { ...check, tool: '' },
  { ...check, tool: 't'.repeat(257) },
  { ...check, session: 's'.repeat(257) },
  { ...check, agent: 3 },
  { ...check, contextTokens: -1 },
  { ...check, contextTokens: 1.5 },
  { ...check, contextTokens: 2 ** 53 },
  { ...check, contextTokens: '5' },
  { ...check, cwd: 'c'.repeat(4097) },
  { ...check, project: 'relative/path' },
  { ...check, project: `/${'p'.repeat(4096)}` },
  { id: 1, op: 'check', tool: 'Read' },
];

const hooks: Record<string, unknown>[] = [
  { id: 1, op: 'hook', agent: 'claude', payload: { hook_event_name: 'PreToolUse' } },
  { id: 1, op: 'hook', agent: 'claude', payload: null },
  { id: 1, op: 'hook', agent: 'codex', payload: {} },
  { id: 1, op: 'hook', agent: 'claude' },
  { id: 1, op: 'hook', agent: 'claude', payload: {}, promptId: 'mhx3k2-1f4-k2j3h4', promptAt: 1_795_000_000_000 },
  { id: 1, op: 'hook', agent: 'claude', payload: {}, promptId: 'mhx3k2-1f4-k2j3h4', off: false },
  { id: 1, op: 'hook', agent: 'claude', payload: {}, promptId: '../../etc/passwd' },
  { id: 1, op: 'hook', agent: 'claude', payload: {}, promptId: 7 },
  { id: 1, op: 'hook', agent: 'claude', payload: {}, promptAt: -1 },
  { id: 1, op: 'hook', agent: 'claude', payload: {}, promptAt: 1.5 },
];

/** What zod alone makes of a request, in parseRequest's terms. */
function byZod(request: Record<string, unknown>): { ok: true; value: RequestOf<'check' | 'hook'> } | { ok: false; issues: string[] } {
  const op = request.op as 'check' | 'hook';
  const parsed = requestSchemas[op].safeParse(request);
  // What the user reads of zod's issues: a field's first, once, in plain words.
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, issues: describeIssues(parsed.error).split('; ') };
}

/** Fields left undefined are as good as left out: the handler drops them. */
const withoutUndefined = (value: unknown) => JSON.parse(JSON.stringify(value));

describe('parseRequest on the hot ops', () => {
  it.each([...checks, ...hooks].map((r) => [JSON.stringify(r).slice(0, 80), r]))('agrees with zod on %s', (_name, request) => {
    const expected = byZod(request);
    const parsed = parseRequest(request);
    expect(parsed.ok).toBe(expected.ok);
    if (parsed.ok && expected.ok) expect(withoutUndefined(parsed.request)).toEqual(withoutUndefined(expected.value));
    if (!parsed.ok && !expected.ok) {
      expect(parsed.code).toBe('bad_request');
      for (const issue of expected.issues) expect(parsed.message).toContain(issue);
    }
  });

  it('hands the tool input on as it came', () => {
    const input = { file_path: '/a' };
    const parsed = parseRequest({ ...check, input });
    expect(parsed.ok && (parsed.request as { input: unknown }).input).toBe(input);
  });

  it('refuses a bad envelope and an unknown op with their codes', () => {
    expect(parseRequest([1, 2])).toMatchObject({ ok: false, id: null, code: 'bad_request', message: expect.stringContaining('an id and an op') });
    expect(parseRequest({ id: 'i'.repeat(129), op: 'check' })).toMatchObject({ ok: false, code: 'bad_request' });
    expect(parseRequest({ id: 1, op: 'x'.repeat(65) })).toMatchObject({ ok: false, id: 1, code: 'bad_request' });
    expect(parseRequest({ id: 2, op: '__proto__' })).toMatchObject({ ok: false, id: 2, code: 'unknown_op' });
  });

  it('takes a search of at most MAX_QUERY_WORDS words, and says what to give for a longer one', () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
    expect(parseRequest({ id: 1, op: 'search', query: words(MAX_QUERY_WORDS) })).toMatchObject({ ok: true });
    expect(parseRequest({ id: 1, op: 'search', query: words(MAX_QUERY_WORDS + 1) })).toMatchObject({
      ok: false,
      code: 'bad_request',
      message: expect.stringContaining(`more than ${MAX_QUERY_WORDS} words: give the few that matter`) as string,
    });
  });
});
