// What recap asks of the agent's own summary when it compacts, as rules of the domain: given
// the job's accepted summaries, when the agent compacts, then the instructions keep the
// newest summary's decisions, the user's directives and its files, within a bound.
import { describe, expect, it } from 'vitest';
import { parseClaudeHook } from '../../src/agents/claude/hook.js';
import { claudeFacts } from '../../src/agents/claude/facts.js';
import { compactSteer, STEER_LINE_CHARS, STEER_MAX_CHARS, steerSeqs, steerText } from '../../src/events/compactSteer.js';
import { DEFAULT_CONFIG, PROFILES } from '../../src/events/config.js';
import type { FileReference, RecapEvent } from '../../src/events/events.js';
import { JOB, stateFrom, T0, textsFrom } from '../helpers/spec.js';

const config = { REQUIRED_SECTIONS: DEFAULT_CONFIG.REQUIRED_SECTIONS };

const ref = (mode: 'read' | 'ref', path: string, why: string, start?: number, end?: number): FileReference => ({
  mode,
  path,
  why,
  ...(start !== undefined ? { start, end: end ?? start } : {}),
  sha256: 'a'.repeat(64),
  tokens: 40,
});

function accepted(text: string, refs?: FileReference[], gist = 'A config parser that reports each error with its line'): RecapEvent {
  return {
    type: 'SummaryAccepted',
    data: { job: JOB, level: 0, sections: [], text, tokens: 300, coversThrough: 0, gist, ...(refs ? { refs } : {}), prevHash: '0'.repeat(64), hash: '1'.repeat(64), time: T0 },
  };
}

/** When the agent compacts: the instructions for the job the events made, read from the summary texts. */
function whenCompacting(events: RecapEvent[], sections: readonly string[] = DEFAULT_CONFIG.REQUIRED_SECTIONS): string | undefined {
  const state = stateFrom(events);
  const texts = textsFrom(events);
  expect(steerSeqs(state).every((seq) => texts.has(seq))).toBe(true);
  return steerText(state, texts, { REQUIRED_SECTIONS: sections });
}

const SUMMARY = [
  'Gist: A config parser that reports each error with its line',
  '',
  '## User Requests',
  '- Report every problem in a file in one pass, never stop at the first.',
  '- Never print stack traces to the user; they belong in debug output.',
  '',
  '## Questions & Decisions',
  '- Unknown keys are errors, not warnings: a typo would silently keep the old behaviour.',
  '* Warnings never change the exit status; only real errors do.',
  '',
  '## Design Choices',
  'Parsing is one pure function, so the daemon and the CLI judge a file alike.',
  '',
  '## Corrections & Feedback',
  '1. The user corrected the message format to path:line:column.',
  '',
  '## Current State',
  'The parser is done; the doctor command is next.',
  '',
  '## Files',
  '- read src/config/parser.ts:10-80 — the parser the decisions are about',
  '- ref docs/config.md — where the format is described',
].join('\n');

const REFS = [ref('read', 'src/config/parser.ts', 'the parser the decisions are about', 10, 80), ref('ref', 'docs/config.md', 'where the format is described')];

describe('steering the agent when it compacts', () => {
  it('given no accepted summary, when the agent compacts, then there is nothing to say', () => {
    expect(steerSeqs(stateFrom([]))).toEqual([]);
    expect(whenCompacting([])).toBeUndefined();
  });

  it("given an accepted summary, when the agent compacts, then it keeps the summary's decisions, the user's directives and its files, named by number and gist", () => {
    const text = whenCompacting([accepted(SUMMARY, REFS)])!;
    expect(text).toMatch(/^recap: when you summarize this conversation, keep what recap's summary #1 \("A config parser that reports each error with its line"\) records/);
    expect(text).toContain(
      'The decisions and their reasons (its "Questions & Decisions" section):\n' +
        '- Unknown keys are errors, not warnings: a typo would silently keep the old behaviour.\n' +
        '- Warnings never change the exit status; only real errors do.',
    );
    expect(text).toContain('The decisions and their reasons (its "Design Choices" section):\n- Parsing is one pure function, so the daemon and the CLI judge a file alike.');
    expect(text).toContain(
      `The user's directives (its "User Requests" section):\n` +
        '- Report every problem in a file in one pass, never stop at the first.\n' +
        '- Never print stack traces to the user; they belong in debug output.',
    );
    expect(text).toContain(`The user's directives (its "Corrections & Feedback" section):\n- The user corrected the message format to path:line:column.`);
    expect(text).toContain(
      'The files it names (read: their lines matter; ref: where to look):\n' +
        '- read src/config/parser.ts:10-80 — the parser the decisions are about\n' +
        '- ref docs/config.md — where the format is described',
    );
    // Neither the state of the work nor the Files section's own lines are decisions or directives.
    expect(text).not.toContain('the doctor command is next');
    expect(text.indexOf('Questions & Decisions')).toBeLessThan(text.indexOf('User Requests'));
  });

  it('given the handoff profile, when the agent compacts, then its Key Decisions and User Directives are kept, its other sections are not', () => {
    const [done, active, decisions, directives, current] = PROFILES.handoff;
    const summary = [
      `## ${done}\nThe parser landed.`,
      `## ${active}\nThe doctor check.`,
      `## ${decisions}\n- Reload keeps the last good config in force, so a typo cannot open the gate.`,
      `## ${directives}\n- Keep every message free of jargon such as token or lexer.`,
      `## ${current}\nWriting the doctor test.`,
    ].join('\n\n');
    const text = whenCompacting([accepted(summary)], PROFILES.handoff)!;
    expect(text).toContain('(its "Key Decisions" section):\n- Reload keeps the last good config in force, so a typo cannot open the gate.');
    expect(text).toContain(`The user's directives (its "User Directives" section):\n- Keep every message free of jargon such as token or lexer.`);
    expect(text).not.toContain('The parser landed');
    expect(text).not.toContain('Writing the doctor test');
    expect(text).not.toContain('The files');
  });

  it('given a summary with no decision or directive section and no files, when the agent compacts, then there is nothing to say', () => {
    const [sources, hypotheses, open] = PROFILES.research;
    const summary = `## ${sources}\nThe RFC.\n\n## ${hypotheses}\nIt scales.\n\n## ${open}\nWhy it fails on Windows.`;
    expect(whenCompacting([accepted(summary)], PROFILES.research)).toBeUndefined();
  });

  it('given two summaries, when the agent compacts, then only the newest is kept, with the files of the newest that names any', () => {
    const newer = SUMMARY.replace('Unknown keys are errors', 'Unknown keys are fatal errors').replace(/\n## Files[\s\S]*$/, '');
    const text = whenCompacting([accepted(SUMMARY, REFS), accepted(newer)])!;
    expect(text).toContain("recap's summary #2");
    expect(text).toContain('- Unknown keys are fatal errors');
    expect(text).not.toContain('- Unknown keys are errors');
    expect(text).toContain('The files summary #1 names (read: their lines matter; ref: where to look):\n- read src/config/parser.ts:10-80');
  });

  it('given a paragraph of sentences, when the agent compacts, then a long one is kept sentence by sentence, and a long sentence is cut at a word', () => {
    const sentence = (n: number) => `Decision ${n} keeps the reload path cheap because the daemon reads the file on every signal it gets.`;
    const paragraph = [1, 2, 3, 4].map(sentence).join(' ');
    const long = `Because ${'the parser must stay small and '.repeat(20)}pure.`;
    const text = compactSteer({ seq: 7, text: `## Questions & Decisions\n${paragraph}\n- ${long}` }, config)!;
    for (const n of [1, 2, 3, 4]) expect(text).toContain(`\n- ${sentence(n)}`);
    const cut = text.split('\n').find((line) => line.startsWith('- Because'))!;
    expect(cut.length).toBeLessThanOrEqual(STEER_LINE_CHARS + 2);
    // Cut where a word ends: what is kept is the sentence's start up to a space.
    expect(cut.endsWith('…')).toBe(true);
    expect(long.startsWith(`${cut.slice(2, -1)} `)).toBe(true);
  });

  it('given a summary too long to keep whole, when the agent compacts, then the instructions stay within the bound, each part keeps lines, and what was left out is counted', () => {
    const lines = (what: string) => Array.from({ length: 60 }, (_, i) => `- ${what} ${i}: ${'a reason that takes some room '.repeat(4)}`).join('\n');
    const summary = `## User Requests\n${lines('directive')}\n\n## Questions & Decisions\n${lines('decision')}`;
    const refs = Array.from({ length: 60 }, (_, i) => ref('ref', `src/file${i}.ts`, 'one of many files the work touched'));
    const text = compactSteer({ seq: 3, text: summary, files: { seq: 3, refs } }, config)!;
    expect(text.length).toBeLessThanOrEqual(STEER_MAX_CHARS);
    expect(text).toContain('- decision 0:');
    expect(text).toContain('- directive 0:');
    expect(text).toContain('- ref src/file0.ts');
    expect(text).not.toContain('- decision 59:');
    expect(text).toMatch(/- \(\d+ more in summary #3\)/);
    // Taken in turn, no part crowds out the others.
    const counts = ['- decision', '- directive', '- ref src/'].map((p) => text.split('\n').filter((l) => l.startsWith(p)).length);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(3);
  });

  it('given code in a decision section, when the agent compacts, then the code is left out and a heading inside it is not a section', () => {
    const summary = '## Questions & Decisions\n- Keep the parser pure.\n```\n## User Requests\nconst x = 1;\n```';
    const text = compactSteer({ seq: 1, text: summary }, config)!;
    expect(text).toContain('- Keep the parser pure.');
    expect(text).not.toContain('const x');
    expect(text).not.toContain("The user's directives");
  });

  it('given the same summary, when the agent compacts twice, then the instructions are the same', () => {
    const events = [accepted(SUMMARY, REFS)];
    expect(whenCompacting(events)).toBe(whenCompacting(events));
  });
});

describe("Claude Code's PreCompact", () => {
  const payload = (extra: Record<string, unknown>) => ({ session_id: 's-1', transcript_path: '/tmp/t.jsonl', cwd: '/work/p', hook_event_name: 'PreCompact', ...extra });

  it('is read as a compaction about to begin, auto or manual', () => {
    for (const extra of [{ trigger: 'auto', custom_instructions: null }, { trigger: 'manual', custom_instructions: 'keep the recap facts' }, {}]) {
      expect(parseClaudeHook(payload(extra))).toMatchObject({ ok: true, call: { kind: 'compacting' }, caller: { cwd: '/work/p', session: 's-1' } });
    }
  });

  it('of an unexpected shape is not a tool call, so nothing denies it', () => {
    expect(parseClaudeHook(payload({ trigger: 42 }))).toMatchObject({ ok: false, event: 'PreCompact', toolCall: false });
  });

  it('is answered with the instructions as plain stdout and exit 0, never with anything that reads as JSON', () => {
    expect(claudeFacts.steer!('recap: keep this')).toEqual({ stdout: 'recap: keep this', exitCode: 0 });
    expect(claudeFacts.steer!(' {"decision":"block"} ')).toEqual({ stdout: '', exitCode: 0 });
    expect(claudeFacts.steer!('  ')).toEqual({ stdout: '', exitCode: 0 });
  });
});
