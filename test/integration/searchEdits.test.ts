// Search, timeline and the decision log after `recap amend` and `recap redact`, on a real
// daemon with a real LevelDB, the edits made as the user: an amended summary is found by its
// amendment's words and not by those it replaced, and says what superseded it; a redacted one
// is found by none of its words and timeline marks it; its decisions leave the log, an
// amendment's appear, and no entry's number changes, before or after a restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SECTIONS } from '../../src/events/config.js';
import { closeSandbox, runCli, sandboxWithDaemon, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { goodSummary, prose } from '../helpers/text.js';

const JOB = 'edited';
/** Words that occur nowhere but where the test puts them. */
const OLD_WORD = 'wombatrix';
const NEW_WORD = 'capybarish';
const REDACTED_WORD = 'narwhalogy';
const KEPT_WORD = 'okapiform';

type Hit = { seq: number; supersededBy?: number; redacted?: true; snippet: string };
type Line = { seq: number; supersededBy?: number; redacted?: true; gist: string };
type Decision = { n: number; seq: number; decision: string; reason: string; supersededBy?: number };
type Log = { total: number; decisions: Decision[] };

/** A default-profile summary of round `round` with `word` in its state and these decision lines. */
const summary = (round: number, word: string, decisions: string[]): string =>
  goodSummary(DEFAULT_SECTIONS, round)
    .replace('## Questions & Decisions\n', () => `## Questions & Decisions\n${decisions.join('\n')}\n`)
    .replace('## Current State\n', `## Current State\nThe ${word} setting stays off until the next release. `);

async function cli(box: Sandbox, args: string[], input?: string): Promise<string> {
  const run = await runCli(box, [...args, '--job', JOB], input === undefined ? {} : { input });
  expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
  return run.stdout;
}

describe('search and decisions after amend and redact', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let amended: number;
  let redacted: number;
  let kept: number;

  const search = async (word: string) => (JSON.parse(await cli(box, ['search', word, '--json'])) as { hits: Hit[] }).hits;
  const decisions = async () => JSON.parse(await cli(box, ['decisions', '--json'])) as Log;
  const numbers = (log: Log) => Object.fromEntries(log.decisions.map((d) => [d.decision, d.n]));

  beforeAll(async () => {
    ({ box, daemon } = await sandboxWithDaemon());
    const submit = async (text: string) => {
      await cli(box, ['record', '--text', prose(3)]);
      await cli(box, ['submit'], text);
    };
    await submit(summary(0, OLD_WORD, ['- Keep the parser strict — loose input hid two bugs']));
    await submit(summary(1, REDACTED_WORD, ['- Drop the legacy flag — nobody sets it']));
    await submit(summary(2, KEPT_WORD, ['- Sort messages by line — the output stays stable']));
    [amended, redacted, kept] = (JSON.parse(await cli(box, ['chain', '--json'])) as { entries: { seq: number }[] }).entries.map((e) => e.seq) as [number, number, number];
    // Built before the edits: the index and the log must follow them.
    expect((await search(OLD_WORD)).map((h) => h.seq)).toEqual([amended]);
    expect((await search(REDACTED_WORD)).map((h) => h.seq)).toEqual([redacted]);
    expect(numbers(await decisions())).toEqual({ 'Keep the parser strict': 1, 'Drop the legacy flag': 2, 'Sort messages by line': 3 });
  });
  afterAll(() => closeSandbox(box, daemon));

  it('amend: the summary is found by a word only in the new text, marked superseded, and not by a word only in the old', async () => {
    const answer = JSON.parse(await cli(box, ['amend', String(amended), '--json'], summary(3, NEW_WORD, ['- Keep the parser lenient — the users asked for it']))) as {
      seq: number;
    };
    const hits = await search(NEW_WORD);
    expect(hits.map((h) => [h.seq, h.supersededBy])).toEqual([[amended, answer.seq]]);
    expect(hits[0]!.snippet).toContain(NEW_WORD);
    expect(await search(OLD_WORD)).toEqual([]);
  });

  it('amend: the decision log shows the amendment’s decision, marked superseded, and keeps every other number', async () => {
    const log = await decisions();
    expect(log.decisions.map((d) => d.decision)).not.toContain('Keep the parser strict');
    expect(log.decisions.find((d) => d.decision === 'Keep the parser lenient')).toMatchObject({ n: 4, seq: amended, supersededBy: expect.any(Number) as number });
    expect(numbers(log)).toMatchObject({ 'Drop the legacy flag': 2, 'Sort messages by line': 3 });
  });

  it('redact: no word of the summary finds it, timeline marks it redacted, and the other summaries are still found', async () => {
    await cli(box, ['redact', String(redacted), '--yes']);
    expect(await search(REDACTED_WORD)).toEqual([]);
    const lines = (JSON.parse(await cli(box, ['timeline', '--json'])) as { entries: Line[] }).entries;
    expect(lines.find((l) => l.seq === redacted)).toMatchObject({ redacted: true, gist: '[redacted]' });
    expect(lines.find((l) => l.seq === amended)?.supersededBy).toBeGreaterThan(amended);
    expect(lines.find((l) => l.seq === kept)).not.toHaveProperty('redacted');
    expect((await search(KEPT_WORD)).map((h) => h.seq)).toEqual([kept]);
    const text = await cli(box, ['timeline']);
    expect(text).toMatch(new RegExp(`^#${redacted} .*\\(redacted\\).*\\[redacted\\]$`, 'm'));
    expect(text).toMatch(new RegExp(`^#${amended} .*\\(amended by #\\d+\\)`, 'm'));
  });

  it('redact: its decisions are gone from recap decisions, the numbers of the others stay', async () => {
    expect(await cli(box, ['decisions'])).not.toContain('Drop the legacy flag');
    expect(numbers(await decisions())).toEqual({ 'Keep the parser lenient': 4, 'Sort messages by line': 3 });
  });

  it('after a restart, the index and the log are built again from the log as edited: the same answers', async () => {
    await daemon.stop();
    daemon = await startDaemon(box);
    expect(await search(REDACTED_WORD)).toEqual([]);
    expect(await search(OLD_WORD)).toEqual([]);
    expect((await search(NEW_WORD)).map((h) => h.seq)).toEqual([amended]);
    expect(await cli(box, ['decisions'])).not.toContain('Drop the legacy flag');
    expect(numbers(await decisions())).toEqual({ 'Keep the parser lenient': 4, 'Sort messages by line': 3 });
  });
});

describe('an amendment that states its summary’s decisions again', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  afterAll(() => closeSandbox(box, daemon));

  it('keeps each at its number, from the amendment, with the amendment’s reason; the same after a restart', async () => {
    ({ box, daemon } = await sandboxWithDaemon());
    await cli(box, ['record', '--text', prose(3)]);
    await cli(box, ['submit'], summary(0, OLD_WORD, ['- Keep the parser strict — loose input hid two bugs', '- Sort messages by line — the output stays stable']));
    await cli(box, ['record', '--text', prose(4)]);
    await cli(box, ['submit'], summary(1, KEPT_WORD, ['- Drop the legacy flag — nobody sets it']));
    const [first] = (JSON.parse(await cli(box, ['chain', '--json'])) as { entries: { seq: number }[] }).entries.map((e) => e.seq) as [number];
    // The usual amendment: the text copied, one thing fixed (a word, a reason), the decisions kept.
    const fixed = summary(2, NEW_WORD, ['- Keep the parser strict — loose input hid three bugs', '- Sort messages by line — the output stays stable']);
    const { seq: amendment } = JSON.parse(await cli(box, ['amend', String(first), '--json'], fixed)) as { seq: number };
    const expected = [
      { n: 3, decision: 'Drop the legacy flag' },
      { n: 2, decision: 'Sort messages by line', seq: first, supersededBy: amendment },
      { n: 1, decision: 'Keep the parser strict', reason: 'loose input hid three bugs', seq: first, supersededBy: amendment },
    ];
    expect((await decisionLog(box)).decisions).toMatchObject(expected);
    await daemon.stop();
    daemon = await startDaemon(box);
    expect((await decisionLog(box)).decisions).toMatchObject(expected);
  });
});

async function decisionLog(box: Sandbox): Promise<Log> {
  return JSON.parse(await cli(box, ['decisions', '--json'])) as Log;
}
