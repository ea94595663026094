// A summary's Gist line and its `## Files` section, as rules of the domain: how they are
// read from the text, what makes a reference acceptable (given what the daemon found on the
// disk), and what a gist must be. Given a text and facts, when judged, then problems or an entry.
import { describe, expect, it } from 'vitest';
import { deriveGist, gistProblems } from '../../src/events/gist.js';
import { judgeReferences, type ReferenceFact } from '../../src/events/references.js';
import { summaryParts } from '../../src/events/summaryParts.js';
import { wordsCounter } from '../../src/events/tokens.js';
import type { SummaryAccepted } from '../../src/events/events.js';
import { context, decide, record, stateFrom, submit, validSummary, words } from '../helpers/spec.js';
import { DEFAULT_SECTIONS } from '../../src/events/config.js';

const count = wordsCounter(1);
const file = (tokens: number, lines = 100, path = 'src/app.ts'): ReferenceFact => ({ state: 'file', path, lines, sha256: 'a'.repeat(64), tokens });

describe('the Files section', () => {
  it('given read and ref lines, when the summary is read, then each becomes a reference and the section leaves the body', () => {
    const text = `${validSummary()}\n\n## Files\n- read src/app.ts:10-20 — the retry loop\n- ref \`docs/plan notes.md\` -- where the plan is\n* READ lib/x.ts: the whole module`;
    const parts = summaryParts(text, DEFAULT_SECTIONS);
    expect(parts.problems).toEqual([]);
    expect(parts.references).toEqual([
      { mode: 'read', path: 'src/app.ts', start: 10, end: 20, why: 'the retry loop' },
      { mode: 'ref', path: 'docs/plan notes.md', why: 'where the plan is' },
      { mode: 'read', path: 'lib/x.ts', why: 'the whole module' },
    ]);
    expect(parts.body).toBe(validSummary());
  });

  it('given a line that is not a reference, a reference without a reason, or a ref with a range, then each is a problem saying the form', () => {
    const text = `${validSummary()}\n\n## Files\nsee src/app.ts\n- read src/app.ts —\n- ref src/app.ts:1-2 — lines`;
    const { problems, references } = summaryParts(text, DEFAULT_SECTIONS);
    expect(references).toEqual([]);
    expect(problems).toEqual([
      expect.stringMatching(/^Files line "see src\/app.ts" is not a reference: write each line as `- read PATH\[:START-END\] — why` or `- ref PATH — why`$/),
      expect.stringMatching(/^Files line "- read src\/app.ts —" gives no reason after its path/),
      expect.stringMatching(/gives a line range to a ref, which hands over the name only/),
    ]);
  });

  it('given a Files section in the middle, then the required sections after it are still found, and a second Files section is a problem', () => {
    const [first, ...rest] = validSummary().split('\n\n## ');
    const text = `${first}\n\n## Files\n- ref a.ts — why\n\n## ${rest.join('\n\n## ')}\n\n## Files\n- ref b.ts — why`;
    const parts = summaryParts(text, DEFAULT_SECTIONS);
    expect(parts.problems).toEqual(['section Files appears 2 times; keep exactly one']);
    expect(parts.body).toContain('## Current State');
  });

  it('given a profile that requires a section called Files, then it is a section like any other', () => {
    const parts = summaryParts('## Files\nthe files we touched', ['Files']);
    expect(parts.references).toEqual([]);
    expect(parts.body).toBe('## Files\nthe files we touched');
  });
});

describe('the reference rules', () => {
  const read = { mode: 'read' as const, path: 'src/app.ts', start: 1, end: 40, why: 'the loop' };

  it('given an existing file within the budget, then it is kept with its path, range, sha256 and tokens', () => {
    const { problems, accepted } = judgeReferences([read], { 'read src/app.ts:1-40': file(300) }, 4000);
    expect(problems).toEqual([]);
    expect(accepted).toEqual([{ mode: 'read', path: 'src/app.ts', start: 1, end: 40, why: 'the loop', sha256: 'a'.repeat(64), tokens: 300 }]);
  });

  it.each([
    ['missing', { state: 'missing' }, /does not exist in the project/],
    ['outside', { state: 'outside' }, /lies outside the job's project: name only files inside it/],
    ['a folder', { state: 'folder' }, /is a folder: name the files in it/],
    ['refused', { state: 'refused', why: "Files names recap's event log" }, /cannot be named: Files names recap's event log/],
    ['no project', { state: 'noProject' }, /this job has no project folder/],
    ['too large', { state: 'tooLarge', bytes: 9 * 1024 * 1024 }, /is 9 MB, more than recap reads \(4 MB\): name a line range or name it as a ref/],
  ] as [string, ReferenceFact, RegExp][])('given a path %s, then it is rejected with its own message', (_, fact, message) => {
    const { problems, accepted } = judgeReferences([read], { 'read src/app.ts:1-40': fact }, 4000);
    expect(accepted).toEqual([]);
    expect(problems).toEqual([expect.stringMatching(message)]);
  });

  it('given a range past the last line or backwards, then it is rejected saying so', () => {
    expect(judgeReferences([read], { 'read src/app.ts:1-40': file(10, 30) }, 4000).problems).toEqual([
      "src/app.ts:1-40 ends after the file's last line (30): name lines that exist",
    ]);
    const backwards = { ...read, start: 9, end: 3 };
    expect(judgeReferences([backwards], { 'read src/app.ts:9-3': file(10) }, 4000).problems).toEqual([expect.stringMatching(/has the range 9-3: a range is START-END/)]);
  });

  it('given read entries over REF_READ_BUDGET, then the rejection says the tokens they need and which to drop', () => {
    const other = { mode: 'read' as const, path: 'src/big.ts', why: 'all of it' };
    const { problems } = judgeReferences([read, other], { 'read src/app.ts:1-40': file(300), 'read src/big.ts': file(5000, 100, 'src/big.ts') }, 4000);
    expect(problems).toEqual([
      'the read entries of Files need 5300 tokens; at most 4000 (REF_READ_BUDGET) are handed over: narrow them to line ranges, or make some refs, e.g. src/big.ts (5000 tokens)',
    ]);
  });

  it('given refs, then they do not count toward the read budget', () => {
    const ref = { mode: 'ref' as const, path: 'src/app.ts', why: 'where it lives' };
    expect(judgeReferences([ref], { 'ref src/app.ts': file(0) }, 10).problems).toEqual([]);
  });

  it('given REF_READ_BUDGET=0, then any Files entry is rejected, saying the section is off', () => {
    const ref = { mode: 'ref' as const, path: 'src/app.ts', why: 'where it lives' };
    expect(judgeReferences([ref], { 'ref src/app.ts': file(0) }, 0).problems).toEqual([
      'Files are off here (REF_READ_BUDGET=0): leave the section out, and name the files in the sections',
    ]);
  });

  it('given more files than recap looks up, then only the section says so', () => {
    const many = Array.from({ length: 51 }, (_, i) => `- ref f${i}.ts — file ${i}`).join('\n');
    const parts = summaryParts(`${validSummary()}\n\n## Files\n${many}`, DEFAULT_SECTIONS);
    expect(parts.problems).toEqual(['Files names 51 files; at most 50: keep the ones the next session needs']);
    expect(judgeReferences(parts.references, {}, 4000).problems).toEqual([]);
  });
});

describe('the gist', () => {
  it('given no Gist line, a placeholder, one too long, too short, filler or copied, then each is a problem saying what to write', () => {
    const none = new Set<string>();
    expect(gistProblems(undefined, count, none)).toEqual([expect.stringMatching(/^missing the gist: begin the summary with one line, before the first section: Gist: /)]);
    expect(gistProblems('<one line: the objective and its outcome; the key files>', count, none)).toEqual([expect.stringMatching(/is not filled in/)]);
    expect(gistProblems(words(130), count, none)).toEqual(['the gist has 130 tokens; at most 128: one line, the objective and its outcome and the key files']);
    expect(gistProblems('fixed it', count, none)).toEqual([expect.stringMatching(/too short \(2 words\)/)]);
    expect(gistProblems('lorem ipsum dolor sit amet consectetur adipiscing elit', count, none)).toEqual([expect.stringMatching(/filler/)]);
  });

  it('given a gist pasted from the interactions, when the summary is submitted, then it is rejected as copied', () => {
    const prompt = 'please make the exporter retry three times with backoff and log every failed attempt to the audit file';
    const body = `Gist: ${prompt}\n\n${validSummary().split('\n\n').slice(1).join('\n\n')}`;
    const state = stateFrom(decide(record(prompt), stateFrom([]), context({})).events);
    const { answer } = decide(submit(body), state, context({}));
    expect(answer).toMatchObject({ accepted: false, problems: [expect.stringMatching(/^the gist is copied from the interactions/)] });
  });

  it("given an accepted summary, then its event keeps the agent's gist; with GIST=recap, recap derives it from the first sentence", () => {
    const state = stateFrom(decide(record(words(20)), stateFrom([]), context({})).events);
    const agent = decide(submit(validSummary()), state, context({})).events[0] as SummaryAccepted;
    expect(agent.data).toMatchObject({ gist: validSummary().split('\n')[0]!.slice('Gist: '.length), gistBy: 'agent' });
    const derived = decide(
      submit('## User Requests\nThe user asked for retries. More followed.\n\n' + validSummary().split('\n\n').slice(2).join('\n\n')),
      state,
      context({ GIST: 'recap', REQUIRED_SECTIONS: ['User Requests'], MIN_TOKENS_PER_SECTION: 1 }),
    );
    expect(derived.events[0]).toMatchObject({ type: 'SummaryAccepted', data: { gist: 'The user asked for retries.', gistBy: 'recap' } });
  });

  it('derives a gist from prose only: not a heading, a code block or a bullet mark, and cut to a line', () => {
    expect(deriveGist('## Goal\n```\ncode here\n```\n- Moved the cache to Redis. Then more.')).toBe('Moved the cache to Redis.');
    expect(deriveGist(`## Goal\n${'word '.repeat(200)}`).length).toBeLessThanOrEqual(280);
  });
});
