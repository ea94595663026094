// Memory that stays bounded, rollups, topics, profiles and the other triggers, as rules
// of the domain: given events, when a command, then events.
import { describe, expect, it } from 'vitest';
import { GENESIS_HASH } from '../../src/events/chain.js';
import type { Command } from '../../src/events/commands.js';
import { configSchema, DEFAULT_CONFIG } from '../../src/events/config.js';
import type { RecapEvent, SummaryAccepted } from '../../src/events/events.js';
import { tripGate } from '../../src/events/gate.js';
import { memorySeqs, memoryText } from '../../src/events/memory.js';
import { recordUsage } from '../../src/events/usage.js';
import { wordsCounter } from '../../src/events/tokens.js';
import { chainOf, context, decide, gateTripped, given, interactionRecorded, JOB, record, stateFrom, submit, T0, textsFrom, validSummary, words } from '../helpers/spec.js';
import { claudeToolCall } from '../../src/agents/claude/facts.js';

const count = wordsCounter(1);

/** Decides commands one after another, each on the state the earlier ones made. */
function run(commands: Command[], config: Parameters<typeof context>[0] = {}, history: RecapEvent[] = []): RecapEvent[] {
  const ctx = context(config);
  const events = [...history];
  for (const command of commands) events.push(...decide(command, stateFrom(events), { ...ctx, texts: textsFrom(events) }).events);
  return events;
}

const accepted = (events: RecapEvent[]) => events.filter((e): e is SummaryAccepted => e.type === 'SummaryAccepted').map((e) => e.data);

const rollupConfig = { ROLLUP_EVERY: 2, ROLLUP_MIN_TOKENS: 100, ROLLUP_MAX_TOKENS: 800 };

describe('rollups', () => {
  it('given ROLLUP_EVERY=2 and one summary, when the second is accepted, then the gate trips for a level-1 rollup', () => {
    const events = run([record(words(10)), submit(validSummary()), record(words(10)), submit(validSummary(61))], rollupConfig);
    expect(events.at(-1)).toEqual({
      type: 'GateTripped',
      data: { job: JOB, reason: 'rollup', unsummarizedTokens: 0, limit: 2, measured: 2, level: 1, time: T0 },
    });
  });

  it('given a rollup is due, when a summary within the rollup band is submitted, then it rolls up the two and clears the gate', () => {
    const before = run([record(words(10)), submit(validSummary()), record(words(10)), submit(validSummary(61))], rollupConfig);
    const rollup = run([submit(validSummary(70))], rollupConfig, before);
    const [first, second, third] = accepted(rollup);
    expect(third).toMatchObject({ level: 1, rolls: [2, 4] });
    expect(third!.coversThrough).toBe(second!.coversThrough);
    expect(first!.level).toBe(0);
    expect(stateFrom(rollup).gate).toEqual({ tripped: false });
  });

  it('given a rollup is due, when the summary is outside the rollup band, then it is rejected naming that band', () => {
    const before = run([record(words(10)), submit(validSummary()), record(words(10)), submit(validSummary(61))], { ...rollupConfig, ROLLUP_MIN_TOKENS: 500 });
    const { answer } = decide(submit(validSummary(62)), stateFrom(before), { ...context({ ...rollupConfig, ROLLUP_MIN_TOKENS: 500 }), texts: textsFrom(before) });
    expect(answer).toEqual({ accepted: false, problems: [expect.stringMatching(/^total \d+ tokens; must be 500 to 800$/)] });
  });

  it('given a rollup is due, when the rollup pastes the summaries it rolls up, then it is rejected as copied from them', () => {
    const before = run([record(words(10)), submit(validSummary()), record(words(10)), submit(validSummary(61))], rollupConfig);
    const body = (text: string, heading: string) => text.split(`## ${heading}\n`)[1]!.split('\n\n')[0]!;
    const pasted =
      'Gist: one rollup of the two summaries of this work, pasted rather than written\n\n' +
      DEFAULT_CONFIG.REQUIRED_SECTIONS.map((h) => `## ${h}\n${body(validSummary(), h)} ${body(validSummary(61), h)}`).join('\n\n');
    const { answer } = decide(submit(pasted), stateFrom(before), { ...context(rollupConfig), texts: textsFrom(before) });
    expect(answer).toEqual({
      accepted: false,
      problems: DEFAULT_CONFIG.REQUIRED_SECTIONS.map((h) => expect.stringMatching(new RegExp(`^${h} is copied from the summaries rolled up \\(9\\d% of it word for word\\)`))),
    });
  });

  it('given two level-1 rollups, when the second is accepted, then a level-2 rollup is due', () => {
    // Each summary a text of its own: the validator refuses one that repeats a recent one.
    const cycle = (n: number) => [record(words(10)), submit(validSummary(n)), record(words(10)), submit(validSummary(n + 1)), submit(validSummary(n + 10))];
    const events = run([...cycle(60), ...cycle(63)], rollupConfig);
    expect(events.at(-1)).toMatchObject({ type: 'GateTripped', data: { reason: 'rollup', level: 2, measured: 2 } });
    expect(accepted(events).map((e) => e.level)).toEqual([0, 0, 1, 0, 0, 1]);
  });
});

describe('topics', () => {
  it('given a main chain, when a summary on a topic is accepted, then it starts its own hash chain', () => {
    const events = run([record(words(10)), submit(validSummary()), record(words(10)), { ...submit(validSummary(61)), topic: 'auth' } as Command]);
    const [main, topic] = accepted(events);
    expect(main!.topic).toBeUndefined();
    expect(topic).toMatchObject({ topic: 'auth', prevHash: GENESIS_HASH });
  });
});

describe('bounded memory', () => {
  /** The summaries' budget alone: no index, no files. */
  const only = (summaries: number) => ({ summaries, index: 0, files: 0 });

  it('given a chain of 1,000 summaries, when the memory is rendered, then it stays within the budget and says what it left out', () => {
    const { state, texts } = chainOf(1000);
    expect(state.chain).toHaveLength(1000);
    const memory = memoryText(state, only(2000), count, texts, 'recap');
    expect(count(memory)).toBeLessThanOrEqual(2000);
    expect(memory).toContain('detail999');
    expect(memory.trim().split('\n').at(-1)).toMatch(/^\(\d+ of the 1000 summaries are not shown whole; recap chain prints them all\.\)$/);
  }, 60_000);

  it('given a chain of 1,000 summaries, then the state keeps no texts and the memory needs only the few it shows', () => {
    const { state, texts } = chainOf(1000);
    expect(state.chain.every((e) => !('text' in e))).toBe(true);
    const seqs = memorySeqs(state, only(2000), count, 'recap');
    expect(seqs.length).toBeGreaterThan(0);
    expect(seqs.length).toBeLessThan(40);
    const needed = new Map(seqs.map((seq) => [seq, texts.get(seq)!]));
    expect(memoryText(state, only(2000), count, needed, 'recap')).toBe(memoryText(state, only(2000), count, texts, 'recap'));
  }, 60_000);

  it('given rollups, when the memory is rendered, then the highest-level rollup comes first', () => {
    const cycle = [record(words(10)), submit(validSummary()), record(words(10)), submit(validSummary(61)), submit(validSummary(70).replace('detail', 'ROLLED'))];
    const events = run([...cycle, record(words(10)), submit(validSummary(55).replace('detail', 'NEWEST'))], rollupConfig);
    const memory = memoryText(stateFrom(events), only(2000), count, textsFrom(events), 'recap');
    expect(memory.indexOf('Rollup (level 1) of 2 summaries')).toBeGreaterThan(0);
    expect(memory.indexOf('ROLLED')).toBeLessThan(memory.indexOf('NEWEST'));
    expect(count(memory)).toBeLessThanOrEqual(2000);
  });

  it('given two topics, when the memory is rendered, then each has its own section within its share', () => {
    const events = run([record(words(10)), submit(validSummary()), record(words(10)), { ...submit(validSummary(61)), topic: 'auth' } as Command]);
    const memory = memoryText(stateFrom(events), only(1000), count, textsFrom(events), 'recap');
    expect(memory).toContain(`recap: the memory of job ${JOB}: 1 summaries`);
    expect(memory).toContain(`recap: the memory of job ${JOB}, topic auth: 1 summaries`);
    expect(count(memory)).toBeLessThanOrEqual(1000);
  });

  it('never goes over a budget too small for anything', () => {
    const events = run([record(words(10)), submit(validSummary())]);
    for (const budget of [1, 5, 20, 100]) expect(count(memoryText(stateFrom(events), only(budget), count, textsFrom(events), 'recap'))).toBeLessThanOrEqual(budget);
  });
});

describe('profiles and section caps', () => {
  it('PROFILE chooses the sections and REQUIRED_SECTIONS overrides it', () => {
    expect(configSchema.parse({ PROFILE: 'research' }).REQUIRED_SECTIONS).toEqual(['Sources Cited', 'Hypotheses Tested', 'Open Questions']);
    expect(configSchema.parse({ PROFILE: 'handoff' }).REQUIRED_SECTIONS).toEqual(['Completed Tasks', 'Active Task', 'Key Decisions', 'User Directives', 'Current Work']);
    expect(configSchema.parse({ PROFILE: 'legal', REQUIRED_SECTIONS: ['Facts'] }).REQUIRED_SECTIONS).toEqual(['Facts']);
  });

  it('given SECTION_MAX_TOKENS, when a section is longer, then the summary is rejected naming it', () => {
    const { answer } = given([interactionRecorded(600), gateTripped(600)], { SECTION_MAX_TOKENS: 55 })
      .when(submit(validSummary(60)))
      .decision();
    expect((answer as { problems: string[] }).problems).toContain('User Requests has 60 tokens; at most 55 allowed');
  });
});

describe('other triggers', () => {
  it('given TRIGGER_MAX_INTERACTIONS=3, when the third counted interaction is recorded, then the gate trips for interactions', () => {
    const events = run([record('one'), record('two'), record('three')], { TRIGGER_MAX_INTERACTIONS: 3 });
    expect(events.at(-1)).toMatchObject({ type: 'GateTripped', data: { reason: 'interactions', measured: 3, limit: 3 } });
  });

  it('given TRIGGER_CONTEXT_PERCENT=50, when a check sees 60% context use, then it trips once for that session', () => {
    const config = { TRIGGER_CONTEXT_PERCENT: 50, CONTEXT_WINDOW: 1000 };
    const check = { type: 'CheckTool', job: JOB, call: claudeToolCall('Read', {}), session: 's1', contextTokens: 600, now: T0 } as Command;
    const first = run([record('hello'), check], config);
    expect(first.filter((e) => e.type === 'GateTripped')).toEqual([
      { type: 'GateTripped', data: { job: JOB, reason: 'context', unsummarizedTokens: 1, limit: 50, measured: 60, session: 's1', time: T0 } },
    ]);
    const after = run([submit(validSummary()), record('again'), check], config, first);
    expect(after.slice(first.length).some((e) => e.type === 'GateTripped')).toBe(false);
  });

  it('given an open gate, when a user trips it, then it trips for manual with the note; a tripped gate stays as it is', () => {
    const before = [interactionRecorded(12)];
    const open = tripGate({ type: 'TripGate', job: JOB, note: 'wrap up', now: T0 }, stateFrom(before));
    expect(open.events).toEqual([{ type: 'GateTripped', data: { job: JOB, reason: 'manual', unsummarizedTokens: 12, limit: 0, note: 'wrap up', time: T0 } }]);
    expect(tripGate({ type: 'TripGate', job: JOB, now: T0 }, stateFrom([...before, ...open.events]))).toEqual({ answer: { tripped: true, already: true }, events: [] });
  });
});

describe('usage', () => {
  it('records each message once, however often it is seen', () => {
    const entry = { key: 'msg_1:req_1', agent: 'main', input: 10, output: 5, cacheCreation: 0, cacheRead: 100 };
    const first = recordUsage({ type: 'RecordUsage', job: JOB, session: 's', entries: [entry, entry], now: T0 }, stateFrom([]));
    expect(first.events).toHaveLength(1);
    expect(recordUsage({ type: 'RecordUsage', job: JOB, session: 's', entries: [entry], now: T0 }, stateFrom(first.events)).events).toEqual([]);
  });
});
