// `recap decisions` on a real daemon: the decision log built from the job's summaries, newest
// first, each entry pointing to its summary; past 100 entries the older ones as an index;
// --json's fields; a rollup and a restated decision adding nothing; a job with no events;
// PROFILE=support, whose sections are required as entries.
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SECTIONS } from '../../src/events/config.js';
import { runCli, trackedSandboxes, type Sandbox } from '../helpers/daemon.js';
import { goodSummary, notes, prose } from '../helpers/text.js';

const { newBox, start } = trackedSandboxes(afterEach);

type Entry = { n: number; seq: number; time: number; topic?: string; section: string; decision: string; reason: string };
type Log = { total: number; decisions: Entry[]; index?: string[] };

/** A sandbox whose config file holds `lines`, and its daemon. */
async function setup(lines: string[] = []): Promise<Sandbox> {
  const box = newBox();
  writeFileSync(box.config, `${['TOKEN_ENCODING=words', ...lines].join('\n')}\n`);
  await start(box);
  return box;
}

/** A default-profile summary (round `round` of goodSummary) with these lines first in Questions & Decisions. */
const withDecisions = (round: number, lines: string[]): string =>
  goodSummary(DEFAULT_SECTIONS, round).replace('## Questions & Decisions\n', () => `## Questions & Decisions\n${lines.join('\n')}\n`);

/** Records a prompt and submits `text` for job `job`; the summary's number. */
async function summarize(box: Sandbox, job: string, text: string): Promise<number> {
  const recorded = await runCli(box, ['record', '--job', job, '--text', prose(3)]);
  expect(recorded.code, recorded.stderr).toBe(0);
  const submitted = await runCli(box, ['submit', '--job', job, '--json'], { input: text });
  expect(submitted.code, submitted.stdout).toBe(0);
  const chain = JSON.parse((await runCli(box, ['chain', '--job', job, '--json'])).stdout) as { entries: { seq: number }[] };
  return chain.entries.at(-1)!.seq;
}

const logOf = async (box: Sandbox, job: string): Promise<Log> => JSON.parse((await runCli(box, ['decisions', '--job', job, '--json'])).stdout) as Log;

/** Pronounceable made-up words, each line's own: a decisions section of many lines still reads as prose to the validator. */
function madeUpWords(count: number, seed: number): string {
  const consonants = 'bcdfghklmnprstvz';
  // mulberry32: well spread in its low bits, unlike a plain linear congruential step.
  let state = seed * 7919 + 17;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
  const syllable = () => consonants[next() % consonants.length]! + 'aeiou'[next() % 5]!;
  return Array.from({ length: count }, () => Array.from({ length: 2 + (next() % 2) }, syllable).join('')).join(' ');
}

describe('recap decisions', () => {
  it('lists the decisions of several summaries newest first, each pointing to its summary', async () => {
    const box = await setup();
    const first = await summarize(box, 'app', withDecisions(0, ['- Keep the parser strict — loose input hid two bugs', 'The user asked about YAML; we stay with conf files.']));
    const second = await summarize(box, 'app', withDecisions(1, ['1. Report every error at once — users fixed one per run', '* Sort messages by line -- the output stays stable']));
    const shown = await runCli(box, ['decisions', '--job', 'app'], { env: { TZ: 'UTC' } });
    expect(shown.code, shown.stderr).toBe(0);
    const day = '\\d{4}-\\d\\d-\\d\\d';
    expect(shown.stdout).toMatch(
      new RegExp(
        `^3 decisions, newest first:\n` +
          `#3  ${day}  Sort messages by line — the output stays stable  \\(summary #${second}\\)\n` +
          `#2  ${day}  Report every error at once — users fixed one per run  \\(summary #${second}\\)\n` +
          `#1  ${day}  Keep the parser strict — loose input hid two bugs  \\(summary #${first}\\)\n$`,
      ),
    );
  });

  it('with --json gives each entry in stable fields', async () => {
    const box = await setup();
    const seq = await summarize(box, 'app', withDecisions(0, ['- Keep the parser strict — loose input hid two bugs']));
    const log = await logOf(box, 'app');
    expect(Object.keys(log).sort()).toEqual(['decisions', 'total']);
    expect(log.decisions).toHaveLength(1);
    const [entry] = log.decisions;
    expect(Object.keys(entry!).sort()).toEqual(['decision', 'n', 'reason', 'section', 'seq', 'time']);
    expect(entry).toMatchObject({ n: 1, seq, section: 'Questions & Decisions', decision: 'Keep the parser strict', reason: 'loose input hid two bugs' });
    expect(typeof entry!.time).toBe('number');
  });

  it('past 100 entries shows the older ones as one index line each, newest first', async () => {
    const box = await setup(['SUMMARY_MAX_TOKENS=4000']);
    const seqs: number[] = [];
    for (let s = 0; s < 3; s += 1) {
      const lines = Array.from({ length: 35 }, (_, i) => `- ${madeUpWords(4, s * 100 + i)} — ${madeUpWords(5, s * 100 + i + 50)}`);
      seqs.push(await summarize(box, 'long', withDecisions(s, lines)));
    }
    const log = await logOf(box, 'long');
    expect(log.total).toBe(105);
    expect(log.decisions.map((e) => e.n)).toEqual(Array.from({ length: 100 }, (_, i) => 105 - i));
    expect(log.index).toHaveLength(5);
    expect(log.index![0]).toMatch(new RegExp(`^#5 \\[\\d{4}-\\d\\d-\\d\\d\\] [a-z ]+ \\(summary #${seqs[0]}\\)$`));
    expect(log.index!.map((line) => line.split(' ')[0])).toEqual(['#5', '#4', '#3', '#2', '#1']);
    // A read after the next summary has the new entries on top, the numbers of the old unchanged.
    const next = await summarize(box, 'long', withDecisions(3, ['- Stop at 106 — the test has what it needs']));
    const after = await logOf(box, 'long');
    expect(after.decisions[0]).toMatchObject({ n: 106, seq: next, decision: 'Stop at 106' });
    expect(after.decisions[1]).toEqual(log.decisions[0]);
    expect(after.index).toEqual([expect.stringMatching(/^#6 /), ...log.index!]);
  });

  it('does not log again what a rollup restates, nor a decision a later summary states in the same words', async () => {
    // Rollups are held to 450 to 2000 tokens, summaries to at most 440: a rollup is the longer.
    const box = await setup(['ROLLUP_EVERY=2', 'ROLLUP_MIN_TOKENS=450', 'ROLLUP_MAX_TOKENS=2000', 'SUMMARY_MAX_TOKENS=440', 'GIST=recap']);
    await summarize(box, 'app', withDecisions(0, ['- Keep the parser strict — loose input hid two bugs']).replace(/^Gist: .*\n\n/, ''));
    await summarize(box, 'app', withDecisions(1, ['- keep the parser strict. — said again', '- Sort messages by line — stable output']).replace(/^Gist: .*\n\n/, ''));
    const rollup = DEFAULT_SECTIONS.map(
      (s, i) => `## ${s}\n${s === 'Questions & Decisions' ? '- Keep the parser strict, in other words — restated\n- Sort by line — restated too\n' : ''}${notes(5, 30 + i * 5)}`,
    ).join('\n\n');
    const submitted = await runCli(box, ['submit', '--job', 'app', '--json'], { input: rollup });
    expect(submitted.code, submitted.stdout).toBe(0);
    expect(JSON.parse(submitted.stdout)).toMatchObject({ accepted: true, entry: { level: 1 } });
    const log = await logOf(box, 'app');
    expect(log.decisions.map((e) => [e.n, e.decision])).toEqual([
      [2, 'Sort messages by line'],
      [1, 'Keep the parser strict'],
    ]);
  });

  it('answers a job that has no events with an empty log, and says so', async () => {
    const box = await setup();
    await summarize(box, 'app', withDecisions(0, ['- Keep the parser strict — loose input hid two bugs']));
    const shown = await runCli(box, ['decisions', '--job', 'ap']);
    expect(shown.code).toBe(0);
    expect(shown.stderr).toBe('recap: job "ap" has no events; jobs with near names: app\n');
    expect(shown.stdout).toMatch(/^no decisions yet: /);
  });
});

describe('PROFILE=support: sections required as entries', () => {
  const SUPPORT = ['Customer Issue', 'Questions Answered', 'Decisions', 'Follow-ups'];
  const QA = '### Q: Why does the export stop at ten thousand rows?\nIt pages through the API and stopped at the default page limit; a larger page size fixed it.';
  const DECISION = '- Raise the page size to five hundred — the API allows it and it cuts the calls by five';
  /** A support summary; `bodies` go first in the sections they name. */
  const supportSummary = (bodies: Record<string, string>) =>
    'Gist: the export that stopped early, answered and fixed\n\n' +
    SUPPORT.map((s, i) => `## ${s}\n${bodies[s] === undefined ? '' : `${bodies[s]}\n`}${notes(3, i * 3)}`).join('\n\n');

  it('refuses a summary without the entries, saying the form, and accepts one with them, whose decisions recap decisions lists', async () => {
    const box = await setup(['PROFILE=support']);
    await runCli(box, ['record', '--job', 'desk', '--text', prose(3)]);
    const refused = await runCli(box, ['submit', '--job', 'desk'], { input: supportSummary({}) });
    expect(refused.code).toBe(2);
    expect(refused.stderr.split('\n')).toEqual(
      expect.arrayContaining([
        'Questions Answered holds 0 answered questions; at least 1 needed, each as ### Q: <question> with its answer on the lines under it',
        'Decisions holds 0 decisions with a reason; at least 1 needed, each as - <decision> — <reason>',
      ]),
    );
    const accepted = await runCli(box, ['submit', '--job', 'desk', '--json'], { input: supportSummary({ 'Questions Answered': QA, Decisions: DECISION }) });
    expect(accepted.code, accepted.stdout).toBe(0);
    const log = await logOf(box, 'desk');
    expect(log.decisions).toEqual([
      expect.objectContaining({ n: 1, section: 'Decisions', decision: 'Raise the page size to five hundred', reason: 'the API allows it and it cuts the calls by five' }),
    ]);
  });
});
