// A request's problems as the user reads them: given a zod error, then each field is told its
// first problem once, by its own name, and a number out of range plainly.
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { describeIssues } from '../../src/common/zodIssues.js';

const problems = (schema: z.ZodType, value: unknown) => {
  const parsed = schema.safeParse(value);
  return parsed.success ? '' : describeIssues(parsed.error);
};

describe('describeIssues', () => {
  const job = z.object({
    job: z
      .string()
      .min(1, 'job is empty')
      .regex(/^[^\x00-\x1f]+$/, 'job contains control characters'),
  });

  it('tells a field its first problem only, without naming it twice when the message does', () => {
    expect(problems(job, { job: '' })).toBe('job is empty');
    expect(problems(job, { job: 'a\x01' })).toBe('job contains control characters');
  });

  it('says a number out of range plainly, and keeps a message the schema gives', () => {
    expect(problems(z.object({ fromSeq: z.number().int().max(Number.MAX_SAFE_INTEGER) }), { fromSeq: 2 ** 60 })).toBe(`fromSeq: must be at most ${Number.MAX_SAFE_INTEGER}`);
    expect(problems(z.object({ limit: z.number().min(1) }), { limit: 0 })).toBe('limit: must be at least 1');
    expect(problems(z.object({ limit: z.number().max(5, 'limit is 5 at most') }), { limit: 9 })).toBe('limit is 5 at most');
  });

  it('names a field that its message does not', () => {
    expect(problems(z.object({ kind: z.string().regex(/^[a-z]+$/, 'a lower-case word') }), { kind: 'A' })).toBe('kind: a lower-case word');
  });
});
