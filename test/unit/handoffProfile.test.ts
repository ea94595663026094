// PROFILE=handoff as a user meets it: its sections quote the user word for word in User
// Directives (VERBATIM_SECTIONS), its summaries run 1,000 to 2,000 tokens unless the user
// sets a band of their own, and its template shows the sub-structure the format asks for.
import { describe, expect, it } from 'vitest';
import { configSchema, configProblems, PROFILES, type Config } from '../../src/events/config.js';
import type { RecapEvent } from '../../src/events/events.js';
import { summaryTemplate } from '../../src/events/gateMessages.js';
import { QUOTE_FORM } from '../../src/events/summaryQuotes.js';
import { combine } from '../../src/common/configLayers.js';
import { settleConfigFile } from '../../src/events/configApproval.js';
import { context, decide, gateTripped, given, JOB, record, stateFrom, submit, T0, textsFrom, validSummary } from '../helpers/spec.js';
import type { Command } from '../../src/events/commands.js';
import { notes } from '../helpers/text.js';

const HANDOFF = [...PROFILES.handoff];

/** The configuration a config file with these values makes, counting words as tokens. */
const configOf = (values: Record<string, unknown>): Config => configSchema.parse({ TOKEN_ENCODING: 'words', TOKEN_WORD_RATIO: 1, ...values });
const handoff = configOf({ PROFILE: 'handoff' });

const PROMPTS = [
  'Move the retry logic out of src/net/client.ts into its own module.\nKeep the public API of fetchWithBackoff exactly as it is; three services call it.',
  'Never push to main directly. Open a pull request for every change, even a one-line fix.',
  'Use “pnpm”, not npm, for every install.',
  'Ship it.',
];

const prompt = (text: string): RecapEvent => ({
  type: 'InteractionRecorded',
  data: { job: JOB, kind: 'prompt', text, tokens: text.split(/\s+/).length, counted: true, time: T0 },
});

/** The window: the user's prompts, and the gate tripped on them. */
const window = (prompts: readonly string[] = PROMPTS): RecapEvent[] => [...prompts.map(prompt), gateTripped(600)];

/** A handoff summary whose User Directives section is `directives`, the other four sections `perSection` words each. */
function handoffSummary(directives: string, perSection = 260, replace: Record<string, string> = {}): string {
  let text = validSummary(perSection, HANDOFF).replace(/## User Directives\n[^\n]*/, () => `## User Directives\n${directives}`);
  for (const [section, body] of Object.entries(replace)) text = text.replace(new RegExp(`## ${section}\\n[^\\n]*`), () => `## ${section}\n${body}`);
  return text;
}

const REAL = '> Keep the public API of fetchWithBackoff exactly as it is; three services call it.';

function problemsOf(events: RecapEvent[], text: string, config: Config = handoff): string[] {
  const { answer } = given(events, config).when({ type: 'SubmitSummary', job: JOB, text, now: T0 }).decision();
  return (answer as { accepted: boolean; problems?: string[] }).problems ?? [];
}

describe('verbatim sections', () => {
  it('given the prompts of the window, when User Directives quotes them (whole lines, parts, a block, an elision), then the summary is accepted', () => {
    const directives = [
      '> Move the retry logic out of src/net/client.ts into its own module.',
      '> Keep the public API of fetchWithBackoff exactly as it is; three services call it.',
      '- "never push to MAIN directly" (said twice)',
      '- “Open a pull request … even a one-line fix”',
      '> "Ship it."',
    ].join('\n');
    const { answer, events } = given(window(), handoff)
      .when({ type: 'SubmitSummary', job: JOB, text: handoffSummary(directives), now: T0 })
      .decision();
    expect(answer).toMatchObject({ accepted: true });
    expect(events[0]!.type).toBe('SummaryAccepted');
    // Under the floor of 100, as short as the user made it: a real quote meets the floor.
    const tally = (answer as { entry: { sections: { heading: string; tokens: number }[] } }).entry.sections.find((s) => s.heading === 'User Directives')!;
    expect(tally.tokens).toBeLessThan(handoff.MIN_TOKENS_PER_SECTION);
  });

  it('given the prompts, when a quote is not among them, then the summary is rejected naming that quote and what to do', () => {
    const problems = problemsOf(window(), handoffSummary(`${REAL}\n> "Rewrite the client in Rust before anything else"`));
    expect(problems).toEqual([
      `User Directives quotes "Rewrite the client in Rust before anything else", which is not in the user's prompts since the last summary: ` +
        `quote the user's exact words as they wrote them (a whole line or sentence, or at least 3 words in a row), or say it without quotation marks, in your own words`,
    ]);
  });

  it('given the prompts, when a quote is two words of a longer sentence, then it is rejected as too short to tell apart', () => {
    expect(problemsOf(window(), handoffSummary(`${REAL}\n> "Use pnpm"`))).toEqual([
      `User Directives quotes "Use pnpm", too few words to be told apart from anyone's: quote the whole line or sentence of the prompt, or at least 3 words in a row`,
    ]);
  });

  it('given a section of only invented quotes, then each is named and the section is held to its floor', () => {
    const problems = problemsOf(window(), handoffSummary('> "Deploy on Fridays only"').replace('detail', 'fetchWithBackoff'));
    expect(problems).toEqual([
      expect.stringMatching(/^User Directives quotes "Deploy on Fridays only", which is not in/),
      expect.stringMatching(/^User Directives has \d+ tokens; at least 100 needed$/),
    ]);
  });

  it('given the prompts, when User Directives repeats them without quotation marks, then it is copied and told to quote them', () => {
    const long = notes(3, 40);
    const problems = problemsOf(window([...PROMPTS, long]), handoffSummary(`${REAL}\n${long}`));
    expect(problems).toEqual([
      expect.stringMatching(/^User Directives copies the interactions without quoting them \(100% of its unquoted text word for word\): quote the user's exact words/),
    ]);
  });

  it('given long prompts quoted whole, then the quotes count neither against their section nor against the whole summary', () => {
    const long = [notes(9, 0), notes(9, 9), notes(9, 18)];
    const text = handoffSummary(long.map((p) => `> ${p}`).join('\n>\n'), 150);
    expect(problemsOf(window(long), text, { ...handoff, SUMMARY_MIN_TOKENS: 600 })).toEqual([]);
  });

  it('given the prompts, when another section pastes one of them, then that section is still rejected as copied', () => {
    const long = notes(8, 60);
    const problems = problemsOf(window([...PROMPTS, long]), handoffSummary(REAL, 300, { 'Active Task': long }));
    expect(problems).toEqual([expect.stringMatching(/^Active Task is copied from the interactions \(100% of it word for word\): say what they amount to, in your own words$/)]);
  });

  it('given VERBATIM_SECTIONS=() under handoff, when User Directives pastes the prompts, then it is copied like any section', () => {
    const long = notes(7, 40);
    const problems = problemsOf(window([long]), handoffSummary(`> ${long}`), configOf({ PROFILE: 'handoff', VERBATIM_SECTIONS: [] }));
    expect(problems).toEqual([expect.stringMatching(/^User Directives is copied from the interactions \(\d+% of it word for word\)/)]);
  });
});

describe('a rollup of verbatim sections', () => {
  const config = { ...handoff, ROLLUP_EVERY: 2 };
  const NO_PUSH = '- "never push to main directly"';

  /** Two summaries quoting the user, and the rollup of them due. */
  function rollupDue(): RecapEvent[] {
    const events: RecapEvent[] = [];
    const commands: Command[] = [record(PROMPTS[0]!), submit(handoffSummary(REAL, 260)), record(PROMPTS[1]!), submit(handoffSummary(NO_PUSH, 261))];
    for (const command of commands) events.push(...decide(command, stateFrom(events), { ...context(config), texts: textsFrom(events) }).events);
    expect(events.at(-1)).toMatchObject({ type: 'GateTripped', data: { reason: 'rollup', level: 1 } });
    return events;
  }

  it('given a rollup due, when it quotes what the summaries rolled up quoted, then it is accepted', () => {
    expect(problemsOf(rollupDue(), handoffSummary(`${REAL}\n${NO_PUSH}`, 150), config)).toEqual([]);
  });

  it('given a rollup due, when it quotes a prompt no summary rolled up quoted, then the quote is refused', () => {
    expect(problemsOf(rollupDue(), handoffSummary(`${REAL}\n> "Open a pull request for every change"`, 150), config)).toEqual([
      expect.stringMatching(/^User Directives quotes "Open a pull request for every change", which is not in the quotes of the summaries rolled up: /),
    ]);
  });
});

describe("a profile's band and floor", () => {
  it('PROFILE=handoff sets 1000 to 2000 tokens, a floor of 100 and User Directives verbatim; the default profile keeps the documented defaults', () => {
    expect(configSchema.parse({ PROFILE: 'handoff' })).toMatchObject({
      SUMMARY_MIN_TOKENS: 1000,
      SUMMARY_MAX_TOKENS: 2000,
      MIN_TOKENS_PER_SECTION: 100,
      VERBATIM_SECTIONS: ['User Directives'],
    });
    expect(configSchema.parse({})).toMatchObject({ SUMMARY_MIN_TOKENS: 200, SUMMARY_MAX_TOKENS: 1000, MIN_TOKENS_PER_SECTION: 50, VERBATIM_SECTIONS: [] });
    expect(configSchema.parse({ PROFILE: 'research' })).toMatchObject({ SUMMARY_MIN_TOKENS: 200, SUMMARY_MAX_TOKENS: 1000, MIN_TOKENS_PER_SECTION: 50 });
  });

  it("the user's own keys win over the profile's", () => {
    const mine = { PROFILE: 'handoff', SUMMARY_MIN_TOKENS: 300, SUMMARY_MAX_TOKENS: 1200, MIN_TOKENS_PER_SECTION: 40, VERBATIM_SECTIONS: ['Key Decisions'] };
    expect(configSchema.parse(mine)).toMatchObject({ SUMMARY_MIN_TOKENS: 300, SUMMARY_MAX_TOKENS: 1200, MIN_TOKENS_PER_SECTION: 40, VERBATIM_SECTIONS: ['Key Decisions'] });
  });

  it("a user's ceiling under the profile's floor is a problem naming both keys and the profile", () => {
    expect(configProblems({ PROFILE: 'handoff', SUMMARY_MAX_TOKENS: 800 })).toEqual([
      { key: 'SUMMARY_MIN_TOKENS', message: "SUMMARY_MIN_TOKENS (1000, PROFILE=handoff's) must not exceed SUMMARY_MAX_TOKENS (800)" },
    ]);
    const combined = combine([{ values: { PROFILE: 'handoff', SUMMARY_MAX_TOKENS: 800 }, sources: { PROFILE: 'my.conf:1', SUMMARY_MAX_TOKENS: 'my.conf:2' } }]);
    expect(combined).toEqual({ ok: false, problems: ["my.conf:2: SUMMARY_MAX_TOKENS: SUMMARY_MIN_TOKENS (1000, PROFILE=handoff's) must not exceed SUMMARY_MAX_TOKENS (800)"] });
  });

  it('a value the profile fills in says so where the configuration shows its sources', () => {
    const combined = combine([{ values: { PROFILE: 'handoff', MIN_TOKENS_PER_SECTION: 80 }, sources: { PROFILE: 'my.conf:1', MIN_TOKENS_PER_SECTION: 'my.conf:2' } }]);
    if (!combined.ok) throw new Error(combined.problems.join('\n'));
    const { sources } = combined.effective;
    expect([sources.SUMMARY_MIN_TOKENS, sources.VERBATIM_SECTIONS, sources.REQUIRED_SECTIONS]).toEqual(['PROFILE=handoff', 'PROFILE=handoff', 'PROFILE=handoff']);
    expect([sources.MIN_TOKENS_PER_SECTION, sources.ROLLUP_MIN_TOKENS]).toEqual(['my.conf:2', 'default']);
  });

  it('given PROFILE=handoff, when a summary has the default band (about 600 tokens), then it is rejected with the profile band', () => {
    expect(problemsOf(window(), handoffSummary(REAL, 150))).toEqual([expect.stringMatching(/^total \d+ tokens; must be 1000 to 2000$/)]);
  });

  it("given PROFILE=handoff and the user's SUMMARY_MIN_TOKENS=200, when the same summary is submitted, then it is accepted", () => {
    expect(problemsOf(window(), handoffSummary(REAL, 150), configOf({ PROFILE: 'handoff', SUMMARY_MIN_TOKENS: 200 }))).toEqual([]);
  });
});

describe('the handoff template', () => {
  const template = (config: Config) => summaryTemplate(config, 'recap');

  it('shows each section its sub-structure: tasks as ### headings, goal / state / next step, decision — reason, quoted directives', () => {
    const text = template(handoff);
    expect(text).toContain('## Completed Tasks\n### <task>\n<what was done, and its outcome>');
    expect(text).toContain('## Active Task\nGoal: <what the user wants done>\nState: <what is done, what is not>\nNext step: <the very next action>');
    expect(text).toContain('## Key Decisions\n- <decision> — <reason>');
    expect(text).toContain(`## User Directives\n${QUOTE_FORM}`);
    expect(text).toContain('## Current Work\n<current work: ');
  });

  it('keeps the default profile as it was, and asks for no quotes where the user made no section verbatim', () => {
    expect(template(configOf({}))).toContain(
      '## User Requests\n<user requests: what happened, in your words>\n## Questions & Decisions\n<questions & decisions: what happened, in your words>',
    );
    expect(template(configOf({ PROFILE: 'handoff', VERBATIM_SECTIONS: [] }))).toContain('## User Directives\n<user directives: what happened, in your words>');
  });
});

describe('a project file that switches to PROFILE=handoff', () => {
  const PROJECT = '/home/dev/app';
  const read = { hash: 'b'.repeat(64), values: { PROFILE: 'handoff' } };
  const settle = (heldHash?: string) =>
    settleConfigFile({
      type: 'SettleConfigFile',
      file: `${PROJECT}/.recap/config.conf`,
      project: PROJECT,
      read,
      approved: undefined,
      heldHash,
      beneath: { TOKEN_THRESHOLD: 450 },
      now: T0,
    });

  it('waits for approval whole: no part of the band the profile brings applies before it, and reading it again records nothing more', () => {
    const [inForce, events] = settle();
    expect(inForce.values).toEqual({});
    expect(events.map((e) => e.type)).toEqual(['ConfigHeld']);
    expect(inForce.held.map((h) => h.key)).toEqual(expect.arrayContaining(['PROFILE', 'SUMMARY_MIN_TOKENS', 'SUMMARY_MAX_TOKENS', 'MIN_TOKENS_PER_SECTION', 'VERBATIM_SECTIONS']));
    expect(settle(read.hash)[1]).toEqual([]);
  });
});
