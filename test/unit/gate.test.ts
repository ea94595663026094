import { describe, expect, it } from 'vitest';
import { GENESIS_HASH, recomputeHash } from '../../src/events/chain.js';
import type { RecapEvent, SummaryAccepted } from '../../src/events/events.js';
import { gateStatus } from '../../src/events/gate.js';
import { check, context, decide, gateTripped, given, interactionRecorded, JOB, LAUNCHER, record, stateFrom, submit, T0, toolDenied, validSummary, words } from '../helpers/spec.js';

const accepted = (events: RecapEvent[]): SummaryAccepted['data'] => {
  const event = events.find((e) => e.type === 'SummaryAccepted');
  if (event?.type !== 'SummaryAccepted') throw new Error('no SummaryAccepted');
  return event.data;
};

describe('RecordInteraction', () => {
  it('given an open gate, when a prompt under the threshold is recorded, then only the interaction is stored', () => {
    given([])
      .when(record(words(120)))
      .then([{ type: 'InteractionRecorded', data: { job: JOB, kind: 'prompt', text: words(120), tokens: 120, counted: true, time: T0 } }]);
  });

  it('given 400 unsummarized tokens, when 100 more are recorded, then the gate trips at the threshold of 500', () => {
    given([interactionRecorded(400)])
      .when(record(words(100)))
      .then([{ type: 'InteractionRecorded', data: { job: JOB, kind: 'prompt', text: words(100), tokens: 100, counted: true, time: T0 } }, gateTripped(500)]);
  });

  it('given 400 unsummarized tokens, when 99 more are recorded, then the gate stays open', () => {
    const { events } = given([interactionRecorded(400)])
      .when(record(words(99)))
      .decision();
    expect(events.map((e) => e.type)).toEqual(['InteractionRecorded']);
  });

  it('given a tripped gate, when another prompt is recorded, then it is stored without tripping again', () => {
    const { events } = given([interactionRecorded(600), gateTripped(600)])
      .when(record(words(10)))
      .decision();
    expect(events.map((e) => e.type)).toEqual(['InteractionRecorded']);
  });

  it('given COUNT_KINDS without "tool", when a tool kind is recorded, then it is stored but does not count', () => {
    const { events } = given([interactionRecorded(499)])
      .when(record(words(50), 'tool'))
      .decision();
    expect(events).toEqual([{ type: 'InteractionRecorded', data: { job: JOB, kind: 'tool', text: words(50), tokens: 50, counted: false, time: T0 } }]);
  });

  it('when the text is empty, then the command is refused with what to do', () => {
    given([])
      .when(record('   '))
      .thenRefused(/empty; give the text/);
  });

  it('records the session and agent when given', () => {
    const { events } = given([])
      .when({ ...record('hi'), session: 's1', agent: 'main' } as never)
      .decision();
    expect(events[0]).toMatchObject({ data: { session: 's1', agent: 'main' } });
  });
});

describe('CheckTool', () => {
  it('given an open gate, when any tool is checked, then it is allowed and nothing is stored', () => {
    const decision = given([interactionRecorded(100)])
      .when(check('Read', { file_path: '/etc/hosts' }))
      .then([]);
    expect(decision.answer).toEqual({ allow: true });
  });

  it('given a tripped gate, when Read is checked, then it is denied and the denial stored', () => {
    const decision = given([interactionRecorded(600), gateTripped(600)])
      .when(check('Read'))
      .then([toolDenied('Read')]);
    expect(decision.answer).toMatchObject({ allow: false });
  });

  it('given a tripped gate, when the agent runs recap submit with a quoted here-document, then it is allowed', () => {
    const command = `${LAUNCHER} submit <<'EOF'\n${validSummary()}\nEOF`;
    const decision = given([interactionRecorded(600), gateTripped(600)])
      .when(check('Bash', { command }))
      .then([]);
    expect(decision.answer).toEqual({ allow: true });
  });

  it('given a tripped gate, when a chained recap command is checked, then it is denied and the reason says why', () => {
    const decision = given([interactionRecorded(600), gateTripped(600)])
      .when(check('Bash', { command: `${LAUNCHER} status; touch /tmp/x` }))
      .then([toolDenied('Bash')]);
    expect((decision.answer as { reason: string }).reason).toContain('This command was refused: the shell operator ; is not allowed');
  });

  it('given a tripped gate, when a Bash call has no command, then it is denied', () => {
    given([interactionRecorded(600), gateTripped(600)])
      .when(check('Bash', {}))
      .then([toolDenied('Bash')]);
  });

  it('given tokens over a lowered threshold and an open gate, when a tool is checked, then the gate trips and denies', () => {
    given([interactionRecorded(300)], { TOKEN_THRESHOLD: 200 })
      .when(check('Edit'))
      .then([gateTripped(300, 200), toolDenied('Edit')]);
  });

  it('given a bypass prefix, when the agent asks a question that starts with it, then the question passes', () => {
    const input = { questions: [{ question: '[PLUGIN-LOCK] Which database?', header: 'db', options: [], multiSelect: false }] };
    given([interactionRecorded(600), gateTripped(600)], { BYPASS_PREFIXES: ['[PLUGIN-LOCK]'] })
      .when(check('AskUserQuestion', input))
      .then([]);
  });

  it('given a bypass prefix, when one of several questions lacks it, then the call is denied', () => {
    const input = { questions: [{ question: '[PLUGIN-LOCK] ok?' }, { question: 'Delete the repo?' }] };
    given([interactionRecorded(600), gateTripped(600)], { BYPASS_PREFIXES: ['[PLUGIN-LOCK]'] })
      .when(check('AskUserQuestion', input))
      .then([toolDenied('AskUserQuestion')]);
  });

  it('given no bypass prefixes, when the agent asks a question while tripped, then it is denied', () => {
    given([interactionRecorded(600), gateTripped(600)])
      .when(check('AskUserQuestion', { questions: [{ question: '[PLUGIN-LOCK] ok?' }] }))
      .then([toolDenied('AskUserQuestion')]);
  });

  it('the deny reason names the job, the cause, the command, the sections, the band, the floor and the interactions', () => {
    const history = [interactionRecorded(600), gateTripped(600)];
    const { answer } = given(history).when(check('Read')).decision();
    const reason = (answer as { reason: string }).reason;
    expect(reason).toContain(`job ${JOB}`);
    expect(reason).toContain('600 unsummarized tokens reached the threshold of 500');
    expect(reason).toContain(`${LAUNCHER} submit <<'EOF'`);
    for (const section of context().config.REQUIRED_SECTIONS) expect(reason).toContain(`## ${section}`);
    expect(reason).toContain('at least 50 tokens in each section');
    expect(reason).toContain('200 to 1000 tokens in total');
    expect(reason).toContain(words(20));
    expect(reason).toContain(`${LAUNCHER} context`);
  });

  it('the deny reason stays under 10,000 characters however much is unsummarized', () => {
    const history = Array.from({ length: 200 }, () => interactionRecorded(400));
    const { answer } = given([...history, gateTripped(80_000)])
      .when(check('Read'))
      .decision();
    const reason = (answer as { reason: string }).reason;
    expect(reason.length).toBeLessThan(10_000);
    expect(reason).toMatch(/the \d+ oldest not shown/);
  });
});

describe('SubmitSummary', () => {
  it('given a tripped gate, when a valid summary is submitted, then it is accepted, linked to the genesis hash and covers every interaction', () => {
    const { events, answer } = given([interactionRecorded(600), gateTripped(600)])
      .when(submit(validSummary()))
      .decision();
    const entry = accepted(events);
    expect(events.map((e) => e.type)).toEqual(['SummaryAccepted']);
    expect(entry.prevHash).toBe(GENESIS_HASH);
    expect(entry.hash).toBe(recomputeHash(entry));
    expect(answer).toEqual({ accepted: true, entry });
    const state = stateFrom([interactionRecorded(600), gateTripped(600), ...events]);
    expect(entry.coversThrough).toBeGreaterThan(0);
    expect(state.pending).toEqual([]);
    expect(state.unsummarizedTokens).toBe(0);
    expect(state.gate).toEqual({ tripped: false });
  });

  it('given an accepted summary, when the next one is accepted, then it links to the first', () => {
    const first = given([interactionRecorded(600), gateTripped(600)])
      .when(submit(validSummary()))
      .decision().events;
    const history = [interactionRecorded(600), gateTripped(600), ...first, interactionRecorded(10)];
    const second = accepted(
      given(history)
        .when(submit(validSummary(70)))
        .decision().events,
    );
    expect(second.prevHash).toBe(accepted(first).hash);
    expect(second.hash).toBe(recomputeHash(second));
  });

  it('given a tripped gate, when an invalid summary is submitted, then it is rejected with every problem and the gate stays tripped', () => {
    const { events, answer } = given([interactionRecorded(600), gateTripped(600)])
      .when(submit('## User Requests\nshort'))
      .decision();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'SummaryRejected', data: { job: JOB } });
    const problems = (answer as { problems: string[] }).problems;
    expect(problems).toContain('missing section: Design Choices');
    expect(problems).toContain('User Requests has 1 tokens; at least 50 needed');
    expect(problems.some((p) => p.startsWith('total '))).toBe(true);
    const state = stateFrom([interactionRecorded(600), gateTripped(600), ...events]);
    expect(state.gate.tripped).toBe(true);
  });

  it('given nothing recorded since the last summary, when a summary is submitted, then nothing is stored', () => {
    const decision = given([]).when(submit(validSummary())).then([]);
    expect(decision.answer).toEqual({ accepted: false, problems: [expect.stringContaining('nothing to summarize')] });
  });

  it('given an open gate with unsummarized interactions, when a valid summary is submitted early, then it is accepted', () => {
    const { events } = given([interactionRecorded(100)])
      .when(submit(validSummary()))
      .decision();
    expect(events.map((e) => e.type)).toEqual(['SummaryAccepted']);
  });

  it('given an accepted summary, when the same text is submitted at the next trip, then it is rejected naming that summary', () => {
    const first = given([interactionRecorded(600), gateTripped(600)])
      .when(submit(validSummary()))
      .decision().events;
    const history = [interactionRecorded(600), gateTripped(600), ...first, interactionRecorded(600), gateTripped(600)];
    const { events, answer } = given(history).when(submit(validSummary())).decision();
    // The first summary is the third event of the history: #3 in the log.
    expect(answer).toEqual({ accepted: false, problems: [expect.stringMatching(/^this summary repeats summary #3 \(100% of its text is the same\)/)] });
    expect(events).toEqual([{ type: 'SummaryRejected', data: { job: JOB, problems: (answer as { problems: string[] }).problems, tokens: expect.any(Number), time: T0 } }]);
  });

  it('given interactions naming files, when a summary names none of them, then it is rejected as ungrounded unless SUMMARY_GROUNDING=off', () => {
    const named: RecapEvent = {
      type: 'InteractionRecorded',
      data: { job: JOB, kind: 'prompt', text: 'Fix src/cache/migrate0003.ts and src/net/fetchWithBackoff.ts, then ask Priya.', tokens: 600, counted: true, time: T0 },
    };
    const ungrounded = given([named, gateTripped(600)])
      .when(submit(validSummary()))
      .decision();
    expect(ungrounded.answer).toEqual({ accepted: false, problems: [expect.stringMatching(/^the summary names 0 of the \d+ concrete things in the interactions/)] });
    const off = given([named, gateTripped(600)], { SUMMARY_GROUNDING: 'off' })
      .when(submit(validSummary()))
      .decision();
    expect(off.events.map((e) => e.type)).toEqual(['SummaryAccepted']);
  });
});

describe('evolve and status', () => {
  const history: RecapEvent[] = [
    interactionRecorded(300),
    interactionRecorded(250),
    gateTripped(550),
    toolDenied('Read'),
    { type: 'SummaryRejected', data: { job: JOB, problems: ['missing section: X'], tokens: 3, time: T0 } },
  ];

  it('replaying the same events twice gives the same state', () => {
    expect(stateFrom(history)).toEqual(stateFrom(history));
  });

  it('the status reports the gate, the tokens, the threshold and the chain length', () => {
    const state = stateFrom(history);
    expect(gateStatus(state, context().config)).toEqual({
      job: JOB,
      tripped: true,
      reason: 'threshold',
      unsummarizedTokens: 550,
      unsummarizedInteractions: 2,
      threshold: 500,
      summaries: 0,
    });
    expect(state.denials).toBe(1);
    expect(state.rejections).toBe(1);
  });

  it('an interaction recorded after the summary was decided stays unsummarized', () => {
    const before = [interactionRecorded(600), gateTripped(600)];
    const summary = decide(submit(validSummary()), stateFrom(before), context()).events;
    const state = stateFrom([...before, interactionRecorded(30), ...summary]);
    expect(state.pending.map((p) => p.tokens)).toEqual([30]);
    expect(state.unsummarizedTokens).toBe(30);
  });
});
