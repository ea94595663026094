// The memory quality signals' rules (qualityRules.ts), a session's first calls as they are
// kept (firstCalls.ts), and the fold that attributes each signal to the summary a session
// followed (qualitySignals.ts).
import { describe, expect, it } from 'vitest';
import { claudeToolCall } from '../../src/agents/claude/facts.js';
import { CURRENT_VERSION, type RecapEvent, type SampledCall, type StoredEvent } from '../../src/events/events.js';
import { FIRST_CALLS, recordFirstCalls, sampledCall } from '../../src/events/firstCalls.js';
import { answerHeld, corrects, heldAnswers, namedFiles, questionsOf, rediscovered, subjectWords } from '../../src/events/qualityRules.js';
import { emptyQuality, foldQuality, jobQuality } from '../../src/events/qualitySignals.js';
import { JOB, T0 } from '../helpers/spec.js';

const ROOT = '/home/dev/app';
const PARSER = `${ROOT}/src/parser.ts`;

const call = (name: string, input: Record<string, unknown>, cwd = ROOT): SampledCall => sampledCall(claudeToolCall(name, input), cwd);

describe('the files a summary names', () => {
  it('are its Files references in the project folder, and the paths its text spells', () => {
    const text = 'The retry loop in lib/retry.ts is done; /etc/app.conf stays; see also README.md.';
    expect(namedFiles(text, [{ path: 'src/parser.ts' }], ROOT)).toEqual([PARSER, `${ROOT}/lib/retry.ts`, '/etc/app.conf', 'README.md']);
  });
});

describe('rediscovery: a first call that looks up a named file', () => {
  const files = [PARSER, 'README.md'];

  it('a read of the file, or of a file its relative name ends', () => {
    expect(rediscovered([call('Read', { file_path: PARSER })], files)).toEqual([PARSER]);
    expect(rediscovered([call('Read', { file_path: 'docs/README.md' })], files)).toEqual(['README.md']);
  });

  it('a glob that names the file, not one that names only its extension', () => {
    expect(rediscovered([call('Glob', { pattern: '**/pars*.ts' })], files)).toEqual([PARSER]);
    expect(rediscovered([call('Glob', { pattern: '**/*.ts' })], files)).toEqual([]);
  });

  it('a reading shell command, its path taken from the folder it ran in; not a command that changes the file', () => {
    expect(rediscovered([call('Bash', { command: 'cat src/parser.ts' })], files)).toEqual([PARSER]);
    expect(rediscovered([call('Bash', { command: 'rm src/parser.ts' })], files)).toEqual([]);
  });

  it('an edit of the file is work, not a search: none', () => {
    expect(rediscovered([call('Edit', { file_path: PARSER, old_string: 'a', new_string: 'b' })], files)).toEqual([]);
  });

  it('each file once, however many calls look it up', () => {
    expect(rediscovered([call('Read', { file_path: PARSER }), call('Grep', { pattern: 'x', path: PARSER })], files)).toEqual([PARSER]);
  });
});

describe('re-asked: a question whose answer the chain holds', () => {
  const summary = [
    '## Questions & Decisions',
    '- Use a hand-written parser for the config loader — a library would pull in YAML',
    '## User Directives',
    '- Never print stack traces to users',
  ].join('\n');
  const answers = heldAnswers(summary);

  it('the chain holds its decisions and its directive lines', () => {
    expect(answers.map((a) => a.text)).toEqual(['Use a hand-written parser for the config loader — a library would pull in YAML', 'Never print stack traces to users']);
  });

  it('a question sharing at least two and half of its subject words with a held answer is re-asked', () => {
    expect(answerHeld('Which parser should the config loader use, a library or our own?', answers)?.text).toMatch(/^Use a hand-written parser/);
    expect(answerHeld('Should errors show stack traces?', answers)?.text).toBe('Never print stack traces to users');
  });

  it('a question on another subject, or sharing one word only, is not', () => {
    expect(answerHeld('Which colour should the status badge have?', answers)).toBeUndefined();
    expect(answerHeld('Which parser do the tests of the web client, the server and the database migrations use?', answers)).toBeUndefined();
  });

  it("a qa interaction's questions are its Q: lines, without the answers", () => {
    expect(questionsOf('Q: Which parser?\nA: Hand-written\n\nQ: Which formats?\nA: json')).toEqual(['Which parser?', 'Which formats?']);
  });
});

describe('corrections: an early prompt that sets the agent right about the summary', () => {
  const words = subjectWords('The parser reports every error with its line; the config loader reads shell files.');

  it('a correction cue and two subject words of the summary: a correction', () => {
    expect(corrects('No, the parser must stop at the first error.', words)).toBe(true);
    expect(corrects('We decided the config loader reads json too.', words)).toBe(true);
  });

  it('no cue, or a cue about another subject: none', () => {
    expect(corrects('Make the parser report each error with its column.', words)).toBe(false);
    expect(corrects('No, use the blue theme for the dashboard.', words)).toBe(false);
  });
});

describe("a session's first calls", () => {
  it('are recorded once, at most FIRST_CALLS of them; none are no event', () => {
    const calls = Array.from({ length: FIRST_CALLS + 5 }, () => call('Read', { file_path: PARSER }));
    const { events } = recordFirstCalls({ type: 'RecordFirstCalls', job: JOB, session: 's', calls, now: T0 });
    expect(events).toHaveLength(1);
    expect((events[0]!.data as { calls: unknown[] }).calls).toHaveLength(FIRST_CALLS);
    expect(recordFirstCalls({ type: 'RecordFirstCalls', job: JOB, session: 's', calls: [], now: T0 }).events).toEqual([]);
  });
});

describe('the fold: each signal under the summary the session followed', () => {
  let seq = 0;
  const stored = (event: RecapEvent): StoredEvent => ({ ...event, seq: (seq += 1), version: CURRENT_VERSION[event.type] }) as StoredEvent;
  const text = 'Gist: the parser\n\n## Questions & Decisions\n- Use a hand-written parser for the config loader — no YAML needed\n\nThe parser reports every error.';
  const accepted = (at: number) =>
    stored({
      type: 'SummaryAccepted',
      data: {
        job: JOB,
        level: 0,
        sections: [],
        text,
        tokens: 30,
        coversThrough: 1,
        refs: [{ mode: 'ref', path: 'src/parser.ts', why: 'the parser', sha256: 'a', tokens: 0 }],
        filesRoot: ROOT,
        gist: 'the parser',
        prevHash: '0',
        hash: 'h',
        time: at,
      },
    });
  const bound = (session: string) => stored({ type: 'SessionBound', data: { session, job: JOB, project: ROOT, cwd: ROOT, time: T0 } });
  const said = (session: string, kind: string, words: string, tokens = 10) =>
    stored({ type: 'InteractionRecorded', data: { job: JOB, kind, text: words, tokens, counted: kind !== 'note', session, time: T0 } });
  const firstCalls = (session: string, calls: SampledCall[]) => stored({ type: 'FirstCallsRecorded', data: { job: JOB, session, calls, time: T0 } });
  const tripped = () => stored({ type: 'GateTripped', data: { job: JOB, reason: 'threshold', unsummarizedTokens: 30, limit: 20, time: T0 } });

  const history = (): StoredEvent[] => {
    seq = 0;
    return [
      bound('before'),
      said('before', 'prompt', 'No, the parser must stop at the first error.'),
      accepted(T0),
      bound('next'),
      said('next', 'prompt', 'Go on with the tests.'),
      said('next', 'qa', 'Q: Which parser should the config loader use?\nA: hand-written'),
      firstCalls('next', [call('Bash', { command: 'cat src/parser.ts' })]),
      said('next', 'prompt', 'Add a line for the changelog.'),
      said('next', 'prompt', 'Make the Makefile quieter.'),
      // A fourth prompt is not early: no correction, whatever it says.
      said('next', 'prompt', 'No, the parser must stop at the first error.'),
      tripped(),
      said('next', 'prompt', 'After the trip: not part of the task.'),
      firstCalls('next', [call('Read', { file_path: '/elsewhere/x.ts' })]),
    ];
  };
  const fold = (events: StoredEvent[]) => {
    const q = emptyQuality();
    for (const event of events) foldQuality(q, event);
    return jobQuality(q, JOB)!;
  };

  it('a session bound before any summary follows none', () => {
    expect(fold(history()).summaries[0]!.sessions).toBe(1);
  });

  it("rediscovery from the session's first record of calls, a later record ignored", () => {
    expect(fold(history()).summaries[0]!.rediscoveries).toEqual([{ session: 'next', file: PARSER }]);
  });

  it('a re-asked question, and no correction past the first EARLY_PROMPTS prompts', () => {
    const [summary] = fold(history()).summaries;
    expect(summary!.reasked).toEqual([{ session: 'next', question: 'Which parser should the config loader use?', answer: expect.stringMatching(/^Use a hand-written parser/) }]);
    expect(summary!.corrections).toEqual([]);
  });

  it('the task: interactions and counted tokens from the summary to the next trip', () => {
    expect(fold(history()).summaries[0]!.task).toEqual({ interactions: 5, countedTokens: 50, ended: 'trip' });
  });

  it("an amendment's text is what later sessions are judged against; a redacted summary names nothing", () => {
    const amended = (entry: number) =>
      stored({
        type: 'SummaryAmended',
        data: { job: JOB, entry, text: 'The work is in lib/retry.ts now.', sections: [], tokens: 9, gist: 'retry', gistBy: 'agent', entryHash: 'h', hash: 'a', time: T0 },
      });
    const events = history().slice(0, 3);
    const entry = events[2]!.seq;
    const later = [bound('late'), firstCalls('late', [call('Read', { file_path: `${ROOT}/lib/retry.ts` })])];
    expect(fold([...events, amended(entry), ...later]).summaries[0]!.rediscoveries).toEqual([{ session: 'late', file: `${ROOT}/lib/retry.ts` }]);
    const redacted = stored({ type: 'EntryRedacted', data: { job: JOB, seq: entry, what: 'summary', time: T0 } });
    const reads = [bound('after'), firstCalls('after', [call('Read', { file_path: PARSER })])];
    expect(fold([...history().slice(0, 3), redacted, ...reads]).summaries[0]!.rediscoveries).toEqual([]);
  });

  it('is deterministic: folding the log twice gives the same signals', () => {
    expect(fold(history())).toEqual(fold(history()));
  });
});
