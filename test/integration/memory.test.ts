// Bounded memory against the real daemon, driven through the real CLI, hook payloads and the
// raw socket: rollups (summaries of summaries), a memory that stays within CONTEXT_BUDGET
// however long the chain, profiles and section caps, the other triggers (interactions,
// manual, context use), the model's usage read from the transcript and `recap report`, and
// topics with chains of their own.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { DEFAULT_SECTIONS } from '../../src/events/config.js';
import { RawClient, removedAfterEach, runCli, sandbox, startDaemon, type CliResult } from '../helpers/daemon.js';
import { goodSummary, notes, prose } from '../helpers/text.js';
import type { JobReport } from '../../src/protocol/answers.js';
import { additionalContext, deniedReason, NOTHING, type HookAnswer } from '../helpers/hookAnswers.js';

const GENESIS = '0'.repeat(64);
const RESEARCH = ['Sources Cited', 'Hypotheses Tested', 'Open Questions'];

type Status = { job: string; tripped: boolean; reason?: string; unsummarizedTokens: number; threshold: number; summaries: number };
type Entry = {
  seq: number;
  level: number;
  text: string;
  tokens: number;
  coversThrough: number;
  topic?: string;
  rolls?: number[];
  sections: { heading: string; tokens: number }[];
  prevHash: string;
  hash: string;
};

/** The `words` encoding, counted here independently of recap: words x 1.3, truncated. */
function words(text: string): number {
  const found = text
    .trim()
    .split(/\s+/u)
    .filter((w) => w !== '');
  return Math.floor(found.length * 1.3);
}

/**
 * A summary in the given sections whose first words are a marker, so its text can be found
 * again, written from the helper's sentences `from` on (`sentences` per section): summaries
 * of one job take ranges that do not overlap, as the validator refuses one that repeats another.
 */
function marked(marker: string, from: number, sentences = 3, sections: readonly string[] = DEFAULT_SECTIONS): string {
  const gist = 'Gist: one step of the parser work and where it ended, for the next session\n\n';
  return gist + sections.map((s, i) => `## ${s}\n${i === 0 ? `${marker} ` : ''}${notes(sentences, from + i * sentences)}`).join('\n\n');
}

const { boxes, daemons, clients } = removedAfterEach();

/** A sandbox whose config file holds `lines`, its daemon, and ways to talk to it about the project's job. */
/** The one line a hook answer shows the user (a notice), if it has one. */
const noticeIn = (answer: { stdout: string }): string | undefined => (answer.stdout === '' ? undefined : (JSON.parse(answer.stdout) as { systemMessage?: string }).systemMessage);

async function setup(lines: string[]) {
  const box = sandbox();
  boxes.push(box);
  writeFileSync(box.config, `${lines.join('\n')}\n`);
  const daemon = await startDaemon(box);
  daemons.push(daemon);
  const client = await RawClient.connect(box.socket);
  clients.push(client);
  const job = jobIdFor(box.project);
  let nextId = 1;

  const cli = (args: string[], input?: string): Promise<CliResult> => runCli(box, [...args, '--job', job], input === undefined ? {} : { input });
  const json = async <T>(args: string[], input?: string): Promise<T> => {
    const result = await cli([...args, '--json'], input);
    expect(result.stderr, result.stderr).not.toMatch(/\(run with --debug|Error:/);
    return JSON.parse(result.stdout) as T;
  };
  async function op<T>(request: Record<string, unknown>): Promise<T> {
    const response = await client.requestAsUser(box, { id: nextId++, ...request });
    expect(response.error, JSON.stringify(response.error)).toBeUndefined();
    return response.result as T;
  }
  const hook = (payload: Record<string, unknown>) => op<HookAnswer>({ op: 'hook', agent: 'claude', payload });

  /** `recap submit`, as a user runs it: the problems on stderr, one per line (exit 2). */
  const submitCli = async (text: string, extra: string[] = []) => {
    const result = await cli(['submit', ...extra], text);
    const problems = result.stderr
      .trim()
      .split('\n')
      .filter((l) => l !== '' && l !== 'rejected:');
    return { ...result, problems };
  };

  return {
    box,
    daemon,
    job,
    cli,
    json,
    op,
    hook,
    submitCli,
    status: () => op<Status>({ op: 'status', job }),
    chain: async () => (await json<{ entries: Entry[] }>(['chain'])).entries,
    /** The reason a Read is denied with (the gate must be tripped). */
    deniedRead: async () => {
      const answer = await op<{ allow: boolean; reason?: string }>({ op: 'check', job, tool: 'Read', input: { file_path: 'src/a.ts' } });
      expect(answer.allow).toBe(false);
      return answer.reason!;
    },
    record: (text: string, kind = 'prompt') => op<{ seq: number; tokens: number; gate: Status }>({ op: 'record', job, kind, text }),
    submit: (text: string, topic?: string) => op<{ accepted: boolean; problems?: string[]; entry?: Entry }>({ op: 'submit', job, text, ...(topic !== undefined ? { topic } : {}) }),
    /** Rewrites the config file, sends SIGHUP and waits for the daemon to say it re-read it. */
    reload: async (config: string[]) => {
      writeFileSync(box.config, `${config.join('\n')}\n`);
      const seen = daemon.lines.length;
      const reread = daemon.waitForLog((l) => l.msg === 'configuration re-read' && daemon.lines.indexOf(l) >= seen);
      daemon.child.kill('SIGHUP');
      await reread;
      // The user rewrote their own file: they approve it (a weakening waits for that).
      await op({ op: 'config', user: true, allow: true });
    },
  };
}

type Harness = Awaited<ReturnType<typeof setup>>;

const preToolUse = (h: Harness, tool_name: string, tool_input: unknown, extra: Record<string, unknown> = {}) => ({
  session_id: 'sess-1',
  cwd: h.box.project,
  permission_mode: 'default',
  hook_event_name: 'PreToolUse',
  tool_name,
  tool_input,
  tool_use_id: 'toolu_1',
  ...extra,
});

/** One line of a Claude Code transcript: an assistant message with its usage. */
function assistant(
  id: string,
  request: string,
  usage: [input: number, output: number, cacheCreation: number, cacheRead: number],
  extra: { model?: string; isSidechain?: boolean; agentId?: string } = {},
): string {
  const { model = 'claude-x', isSidechain = false, agentId } = extra;
  return JSON.stringify({
    type: 'assistant',
    isSidechain,
    ...(agentId !== undefined ? { agentId } : {}),
    requestId: request,
    message: {
      id,
      model,
      role: 'assistant',
      content: [{ type: 'text', text: 'working on it' }],
      usage: { input_tokens: usage[0], output_tokens: usage[1], cache_creation_input_tokens: usage[2], cache_read_input_tokens: usage[3] },
    },
  });
}

describe('rollups', () => {
  // Rollups are held to 450 to 2000 tokens, summaries to 200 to 440.
  // Gists derived by recap: a rollup's own gist would echo those of the summaries it rolls up.
  const CONFIG = ['TOKEN_ENCODING=words', 'TOKEN_THRESHOLD=20', 'ROLLUP_EVERY=2', 'ROLLUP_MIN_TOKENS=450', 'ROLLUP_MAX_TOKENS=2000', 'SUMMARY_MAX_TOKENS=440', 'GIST=recap'];
  /** Where each summary's sentences start: no two that the validator compares share one. */
  const FROM: Record<string, number> = { S1: 0, S2: 15, R1: 30, S3: 55, S4: 70, R2: 85, R3: 55 };
  const summaryOf = (name: string, sentences = 3) => marked(`Marker-${name}.`, FROM[name]!, sentences);
  /** A rollup: five sentences a section, over the summary band. */
  const rollupOf = (name: string) => summaryOf(name, 5);

  /** Records a prompt (it trips the threshold) and has a level-0 summary accepted. */
  async function summarize(h: Harness, name: string): Promise<void> {
    expect((await h.record(`Marker-${name}.: ${prose(2)}`)).gate).toMatchObject({ tripped: true, reason: 'threshold' });
    expect(await h.submit(summaryOf(name))).toMatchObject({ accepted: true, entry: { level: 0 } });
  }

  it('every ROLLUP_EVERY summaries trip the gate for a rollup in its own band, and rollups of rollups follow', async () => {
    const h = await setup(CONFIG);
    await summarize(h, 'S1');
    expect(await h.status()).toMatchObject({ tripped: false, summaries: 1 });
    await summarize(h, 'S2');
    expect(await h.json(['status'])).toMatchObject({ tripped: true, reason: 'rollup', summaries: 2 });

    // The agent is told to roll up, and given the summaries to roll up.
    const check = await h.cli(['check', '--tool', 'Read', '--input', '{"file_path":"src/a.ts"}']);
    expect(check.code).toBe(2);
    expect(check.stderr).toMatch(/roll/i);
    expect(check.stderr).toContain('Marker-S1.');
    expect(check.stderr).toContain('Marker-S2.');

    // A rollup is held to ROLLUP_MIN/MAX_TOKENS, not the summary band.
    const small = goodSummary(DEFAULT_SECTIONS, 3); // sentences 45 to 59: none of the rolled ones'
    expect(words(small)).toBeGreaterThanOrEqual(200);
    expect(words(small)).toBeLessThan(450);
    const rejected = await h.submitCli(small);
    expect(rejected.code).toBe(2);
    expect(rejected.problems).toEqual([`total ${words(small)} tokens; must be 450 to 2000`]);
    expect(await h.status()).toMatchObject({ tripped: true, reason: 'rollup' });

    const big = rollupOf('R1');
    expect(words(big)).toBeGreaterThan(440); // over the summary band, inside the rollup band
    const r1 = await h.submitCli(big);
    expect(r1.code, r1.stderr).toBe(0);
    expect(await h.status()).toMatchObject({ tripped: false, summaries: 3 });

    let chain = await h.chain();
    expect(chain.map((e) => e.level)).toEqual([0, 0, 1]);
    expect(chain[2]!.rolls).toEqual([chain[0]!.seq, chain[1]!.seq]);
    // The rolled-up summaries stay in the chain as they were, and the links hold.
    expect(chain[0]!.text).toBe(summaryOf('S1'));
    expect(chain[1]!.text).toBe(summaryOf('S2'));
    expect(chain[2]!.text).toBe(big);
    expect(chain[1]!.prevHash).toBe(chain[0]!.hash);
    expect(chain[2]!.prevHash).toBe(chain[1]!.hash);

    // Two more summaries make a second level-1 rollup; two level-1 rollups make a level-2 one.
    await summarize(h, 'S3');
    await summarize(h, 'S4');
    expect(await h.status()).toMatchObject({ tripped: true, reason: 'rollup' });
    expect(await h.submit(rollupOf('R2'))).toMatchObject({ accepted: true, entry: { level: 1 } });
    expect(await h.status()).toMatchObject({ tripped: true, reason: 'rollup', summaries: 6 });
    const due = await h.deniedRead();
    expect(due).toContain('level-2');
    expect(due).toContain('Marker-R1.');
    expect(due).toContain('Marker-R2.');
    expect(due).not.toContain('Marker-S3.');

    expect(await h.submit(rollupOf('R3'))).toMatchObject({ accepted: true, entry: { level: 2 } });
    chain = await h.chain();
    expect(chain.map((e) => e.level)).toEqual([0, 0, 1, 0, 0, 1, 2]);
    expect(chain[5]!.rolls).toEqual([chain[3]!.seq, chain[4]!.seq]);
    expect(chain[6]!.rolls).toEqual([chain[2]!.seq, chain[5]!.seq]);
    expect(await h.status()).toMatchObject({ tripped: false, summaries: 7 });

    // The memory is the highest rollup, which covers everything.
    const memory = (await h.cli(['context'])).stdout;
    expect(memory).toContain('Rollup (level 2) of 2 summaries');
    expect(memory).toContain('Marker-R3.');
    expect(memory, 'no level-0 summary is shown whole').not.toMatch(/^### Summary #\d+,/m);
    expect(memory).toContain(`(6 of the 7 summaries are not shown whole; the index below lists them, and ${join(h.box.data, 'bin', 'recap')} chain prints them all.)`);
    // The others, newest first, one line each.
    expect(memory).toContain('Index of the 6 summaries not shown whole, newest first');
    expect([...memory.matchAll(/^#(\d+) \d{4}-\d\d-\d\d (?:rollup L1 )?— Marker-(\w+)\./gm)].map((m) => m[2])).toEqual(['R2', 'S4', 'S3', 'R1', 'S2', 'S1']);
  });

  it('after a restart, the summaries to roll up, the memory and the chain are read back from the log', async () => {
    const h = await setup(CONFIG);
    await summarize(h, 'S1');
    await summarize(h, 'S2');
    await h.daemon.stop('SIGTERM');
    const restarted = await startDaemon(h.box);
    daemons.push(restarted);

    const check = await h.cli(['check', '--tool', 'Read', '--input', '{"file_path":"src/a.ts"}']);
    expect(check.code).toBe(2);
    expect(check.stderr).toContain('Marker-S1.');
    expect(check.stderr).toContain('Marker-S2.');
    expect((await h.cli(['context'])).stdout).toContain('Marker-S2.');

    const rollup = rollupOf('R1');
    expect((await h.submitCli(rollup)).code).toBe(0);
    await restarted.stop('SIGKILL');
    daemons.push(await startDaemon(h.box));
    expect((await h.cli(['context'])).stdout).toContain('Marker-R1.');
    expect((await h.chain()).map((e) => e.text)).toEqual([summaryOf('S1'), summaryOf('S2'), rollup]);
  });
});

describe('bounded memory', () => {
  // Gists derived by recap: these summaries are a line each, and the budgets are the point.
  const FAST = ['TOKEN_ENCODING=words', 'TOKEN_THRESHOLD=1000000', 'REQUIRED_SECTIONS=("Notes")', 'MIN_TOKENS_PER_SECTION=1', 'SUMMARY_MIN_TOKENS=1', 'GIST=recap'];
  const FILLER = 'the parser now reads quoted values arrays comments and defaults and reports every mistake with its file line and key'.split(' ');
  const tag = (i: number) => `entry-${String(i).padStart(4, '0')}`;
  /** Summaries that differ in their words and their length. */
  const note = (i: number) => `## Notes\n${tag(i)} ${FILLER.slice(0, 6 + (i % 13)).join(' ')} (step ${i * 7}).`;

  it('recap context and SessionStart stay within CONTEXT_BUDGET over a chain of 1,000 summaries, newest first, saying what is left out', async () => {
    const h = await setup([...FAST, 'CONTEXT_BUDGET=1500', 'INDEX_BUDGET=0']);
    for (let i = 1; i <= 1000; i += 1) {
      await h.op({ op: 'record', job: h.job, kind: 'prompt', text: `prompt ${i}: ${prose(1)}` });
      const answer = await h.op<{ accepted: boolean; problems?: string[] }>({ op: 'submit', job: h.job, text: note(i) });
      if (!answer.accepted) expect.fail(`summary ${i} was rejected: ${answer.problems?.join('; ')}`);
    }
    expect(await h.status()).toMatchObject({ tripped: false, summaries: 1000 });

    const checkMemory = (memory: string) => {
      expect(words(memory)).toBeLessThanOrEqual(1500);
      expect(memory).toContain(tag(1000));
      const shown = memory.match(/^### Summary/gm)?.length ?? 0;
      expect(shown).toBeGreaterThan(10);
      expect(shown).toBeLessThan(1000);
      // Everything shown is the newest summaries.
      for (let i = 1000; i > 1000 - shown; i -= 1) expect(memory).toContain(tag(i));
      expect(memory).not.toContain(tag(1000 - shown));
      const last = memory.trim().split('\n').at(-1)!;
      expect(last).toBe(`(${1000 - shown} of the 1000 summaries are not shown whole; ${join(h.box.data, 'bin', 'recap')} chain prints them all.)`);
    };

    const context = await h.cli(['context']);
    expect(context.code).toBe(0);
    checkMemory(context.stdout);

    const start = await h.hook({ session_id: 'sess-new', cwd: h.box.project, hook_event_name: 'SessionStart', source: 'startup' });
    const handed = additionalContext(start, 'SessionStart');
    checkMemory(handed);
    expect(handed.trim()).toBe(context.stdout.trim());
  });

  it('the memory handed to Claude Code stays within its 10,000 characters whatever CONTEXT_BUDGET says, while recap context prints it whole', async () => {
    const h = await setup([...FAST, 'CONTEXT_BUDGET=50000', 'INDEX_BUDGET=0']);
    for (let i = 1; i <= 300; i += 1) {
      await h.record(`prompt ${i}: ${prose(1)}`);
      const answer = await h.submit(note(i));
      if (!answer.accepted) expect.fail(`summary ${i} was rejected: ${answer.problems?.join('; ')}`);
    }
    const whole = await h.cli(['context']);
    expect(whole.stdout.length).toBeGreaterThan(20_000);
    expect(whole.stdout).toContain(tag(1));

    const handed = additionalContext(await h.hook({ session_id: 'sess-new', cwd: h.box.project, hook_event_name: 'SessionStart', source: 'startup' }), 'SessionStart');
    expect(handed.length).toBeLessThanOrEqual(10_000);
    expect(handed.length).toBeGreaterThan(5_000);
    // The newest summaries, and a closing line that says where the rest is: nothing cut mid-way.
    expect(handed).toContain(tag(300));
    expect(handed).not.toContain('[recap: cut at');
    expect(handed.trim().split('\n').at(-1)).toMatch(/^\(\d+ of the 300 summaries are not shown whole; .* chain prints them all\.\)$/);
  });

  it('a tripped gate hands Claude Code the demand within 10,000 characters: the newest interactions cut short, and the command that prints them whole', async () => {
    const h = await setup(['TOKEN_ENCODING=words', 'TOKEN_THRESHOLD=20000', 'CONTEXT_BUDGET=50000']);
    for (let i = 1; i <= 40; i += 1) await h.record(`prompt-${i} ${prose(40)}`);
    expect(await h.status()).toMatchObject({ tripped: true });
    const whole = await h.cli(['context']);
    expect(whole.stdout.length).toBeGreaterThan(50_000);
    expect(whole.stdout).toContain('prompt-1 ');

    const handed = additionalContext(await h.hook({ session_id: 'sess-new', cwd: h.box.project, hook_event_name: 'SessionStart', source: 'startup' }), 'SessionStart');
    expect(handed.length).toBeLessThanOrEqual(10_000);
    expect(handed).toContain(`recap: job ${h.job} needs a summary`);
    expect(handed).toContain('prompt-40 ');
    expect(handed).not.toContain('prompt-1 ');
    expect(handed).toMatch(/oldest not shown, each cut to \d+ characters; run .*recap context in your Bash tool to read them whole/);
  });

  it('with rollups the memory leads with the highest-level rollup, even over newer summaries', async () => {
    // The rollups here are stand-ins that name none of the entries' numbers: grounding is not what this tests.
    const h = await setup([...FAST, 'ROLLUP_EVERY=2', 'ROLLUP_MIN_TOKENS=1', 'CONTEXT_BUDGET=2000', 'SUMMARY_GROUNDING=off', 'INDEX_BUDGET=0']);
    const submit = async (text: string, level: number) => {
      const answer = await h.op<{ accepted: boolean; entry: Entry }>({ op: 'submit', job: h.job, text });
      expect(answer).toMatchObject({ accepted: true, entry: { level } });
    };
    const summary = async (i: number) => {
      await h.op({ op: 'record', job: h.job, kind: 'prompt', text: `prompt ${i}` });
      await submit(note(i), 0);
    };
    const rollup = (name: string) => `## Notes\n${name} ${FILLER.join(' ')}`;
    await summary(1);
    await summary(2);
    await submit(rollup('rollup-A'), 1);
    await summary(3);
    await summary(4);
    await submit(rollup('rollup-B'), 1);
    await submit(rollup('rollup-TOP'), 2);
    await summary(5);

    const memory = (await h.cli(['context'])).stdout;
    expect(memory).toContain('Rollup (level 2) of 2 summaries');
    expect(memory.indexOf('rollup-TOP')).toBeGreaterThan(0);
    expect(memory.indexOf('rollup-TOP')).toBeLessThan(memory.indexOf(tag(5)));
    for (const rolled of ['rollup-A', 'rollup-B', tag(1), tag(2), tag(3), tag(4)]) expect(memory).not.toContain(rolled);
    expect(memory.trim().split('\n').at(-1)).toBe(`(6 of the 8 summaries are not shown whole; ${join(h.box.data, 'bin', 'recap')} chain prints them all.)`);

    // With room for one block only, the rollup wins over the newer summary.
    await h.reload([...FAST, 'ROLLUP_EVERY=2', 'ROLLUP_MIN_TOKENS=1', 'CONTEXT_BUDGET=90', 'SUMMARY_GROUNDING=off', 'INDEX_BUDGET=0']);
    const tight = (await h.cli(['context'])).stdout;
    expect(words(tight)).toBeLessThanOrEqual(90);
    expect(tight).toContain('rollup-TOP');
    expect(tight).not.toContain(tag(5));
    expect(tight.trim().split('\n').at(-1)).toBe(`(7 of the 8 summaries are not shown whole; ${join(h.box.data, 'bin', 'recap')} chain prints them all.)`);
  });
});

describe('profiles and section caps', () => {
  it('PROFILE=research makes Sources Cited, Hypotheses Tested and Open Questions the sections', async () => {
    const h = await setup(['TOKEN_ENCODING=words', 'TOKEN_THRESHOLD=20', 'PROFILE=research']);
    await h.record(prose(2));
    const reason = await h.deniedRead();
    for (const section of RESEARCH) expect(reason).toContain(`## ${section}`);
    expect(reason).not.toContain('## User Requests');

    const rejected = await h.submitCli(goodSummary());
    expect(rejected.code).toBe(2);
    expect(rejected.problems).toEqual(RESEARCH.map((s) => `missing section: ${s}`));

    const accepted = await h.submit(goodSummary(RESEARCH));
    expect(accepted).toMatchObject({ accepted: true });
    expect(accepted.entry!.sections.map((s) => s.heading)).toEqual(RESEARCH);
  });

  it('REQUIRED_SECTIONS overrides PROFILE (re-read on SIGHUP)', async () => {
    const h = await setup(['TOKEN_ENCODING=words', 'TOKEN_THRESHOLD=20', 'PROFILE=research']);
    await h.record(prose(2));
    expect(await h.deniedRead()).toContain('## Sources Cited');

    await h.reload(['TOKEN_ENCODING=words', 'TOKEN_THRESHOLD=20', 'PROFILE=research', 'REQUIRED_SECTIONS=("Goal" "Next Steps")', 'SUMMARY_MIN_TOKENS=100']);
    const reason = await h.deniedRead();
    expect(reason).toContain('## Goal');
    expect(reason).toContain('## Next Steps');
    expect(reason).not.toContain('Sources Cited');

    expect(await h.submit(goodSummary(RESEARCH))).toEqual({ accepted: false, problems: ['missing section: Goal', 'missing section: Next Steps'] });
    expect(await h.submit(goodSummary(['Goal', 'Next Steps']))).toMatchObject({ accepted: true });
  });

  it('SECTION_MAX_TOKENS caps every section', async () => {
    const h = await setup(['TOKEN_ENCODING=words', 'TOKEN_THRESHOLD=20', 'SECTION_MAX_TOKENS=55', 'MIN_TOKENS_PER_SECTION=20', 'SUMMARY_MIN_TOKENS=100']);
    await h.record(prose(2));
    expect(await h.deniedRead()).toContain('at least 20 and at most 55 tokens in each section');

    const summary = goodSummary(); // three sentences a section: 57 to 68 tokens each
    const over = summary
      .split('\n\n')
      .slice(1)
      .map((part) => words(part.slice(part.indexOf('\n') + 1)));
    for (const n of over) expect(n).toBeGreaterThan(55);
    const rejected = await h.submitCli(summary);
    expect(rejected.code).toBe(2);
    expect(rejected.problems).toEqual(DEFAULT_SECTIONS.map((s, i) => `${s} has ${over[i]} tokens; at most 55 allowed`));

    const short = `Gist: the parser reports errors with lines, in sections under the cap\n\n${DEFAULT_SECTIONS.map((s, i) => `## ${s}\n${notes(2, 20 + 2 * i)}`).join('\n\n')}`; // two sentences a section: 40 to 48 tokens each
    for (const part of short.split('\n\n').slice(1)) expect(words(part.slice(part.indexOf('\n') + 1))).toBeLessThanOrEqual(55);
    expect(await h.submit(short)).toMatchObject({ accepted: true });
  });
});

describe('triggers', () => {
  it('TRIGGER_MAX_INTERACTIONS trips on the third counted interaction', async () => {
    const h = await setup(['TOKEN_ENCODING=words', 'TOKEN_THRESHOLD=100000', 'TRIGGER_MAX_INTERACTIONS=3']);
    expect((await h.record('first prompt')).gate).toMatchObject({ tripped: false });
    expect((await h.record('second prompt')).gate).toMatchObject({ tripped: false });
    // A kind that does not count is no interaction toward the limit.
    expect((await h.record('a note on the side', 'note')).gate).toMatchObject({ tripped: false });
    expect((await h.record('third prompt')).gate).toMatchObject({ tripped: true, reason: 'interactions' });
    expect(await h.json(['status'])).toMatchObject({ tripped: true, reason: 'interactions' });
    expect(await h.deniedRead()).toContain('3 unsummarized interactions reached the limit of 3');

    // A summary starts the count again.
    expect(await h.submit(goodSummary())).toMatchObject({ accepted: true });
    expect((await h.record('fourth prompt')).gate).toMatchObject({ tripped: false });
  });

  it('recap trip trips the gate by hand, quoting the reason, once', async () => {
    const h = await setup(['TOKEN_ENCODING=words', 'TOKEN_THRESHOLD=100000']);
    await h.record('a prompt');
    const first = await h.cli(['trip', '--reason', 'wrap up']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).not.toContain('already');
    expect(await h.status()).toMatchObject({ tripped: true, reason: 'manual' });
    expect(await h.deniedRead()).toContain('wrap up');

    const second = await h.cli(['trip', '--reason', 'again']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('the gate was already tripped');
    expect(await h.deniedRead()).not.toContain('again');
  });

  it("the agent's Bash may not run recap trip, even with the gate open", async () => {
    const h = await setup(['TOKEN_ENCODING=words', 'TOKEN_THRESHOLD=100000']);
    for (const command of ['recap trip', 'recap trip --reason "done"', 'recap --json trip']) {
      const reason = deniedReason(await h.hook(preToolUse(h, 'Bash', { command, description: 'trip' })));
      expect(reason, command).toContain("recap trip changes recap's setup; only the user may run it");
    }
    // A read-only recap command, by the launcher, passes, and nothing was tripped.
    expect(await h.hook(preToolUse(h, 'Bash', { command: `${join(h.box.data, 'bin', 'recap')} status` }))).toEqual(NOTHING);
    expect(await h.status()).toMatchObject({ tripped: false });
  });

  it("TRIGGER_CONTEXT_PERCENT trips once per session when the main chain's context use reaches the share of CONTEXT_WINDOW", async () => {
    const h = await setup(['TOKEN_ENCODING=words', 'TOKEN_THRESHOLD=100000', 'TRIGGER_CONTEXT_PERCENT=50', 'CONTEXT_WINDOW=1000']);
    // Something to summarize: with nothing, no trigger trips the gate.
    await h.op({ op: 'record', job: h.job, kind: 'prompt', text: 'start the parser work' });
    const dir = join(h.box.dir, 'transcripts');
    mkdirSync(dir);
    const transcript = join(dir, 'sess-1.jsonl');
    const read = (session = 'sess-1', path = transcript) => h.hook(preToolUse(h, 'Read', { file_path: 'src/a.ts' }, { session_id: session, transcript_path: path }));

    // No transcript yet: no error, the hook answers as usual.
    expect(await read('sess-1', join(dir, 'missing.jsonl'))).toEqual(NOTHING);

    // 49%: under the limit. A subagent's bigger context is not the agent's.
    writeFileSync(transcript, `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'go' } })}\n${assistant('msg_1', 'req_1', [90, 20, 200, 200])}\n`);
    expect(await read()).toEqual(NOTHING);
    appendFileSync(transcript, `${assistant('msg_s', 'req_s', [100, 5, 400, 400], { isSidechain: true, agentId: 'sub-1' })}\n`);
    expect(await read()).toEqual(NOTHING);
    expect(await h.status()).toMatchObject({ tripped: false });

    // A line still being written is skipped, without an error, and read once complete.
    const line = assistant('msg_2', 'req_2', [100, 20, 200, 200]); // 500 of 1000: 50%
    appendFileSync(transcript, line.slice(0, 60));
    expect(await read()).toEqual(NOTHING);
    expect(await h.status()).toMatchObject({ tripped: false });
    appendFileSync(transcript, `${line.slice(60)}\n`);
    const reason = deniedReason(await read());
    expect(reason).toContain("the agent's context use reached 50% of its window (limit 50%)");
    expect(await h.status()).toMatchObject({ tripped: true, reason: 'context' });

    // Summarized, the same session does not trip it again, however full its context.
    expect(await h.submit(goodSummary())).toMatchObject({ accepted: true });
    expect(noticeIn(await read())).toMatch(/was accepted .*; the gate is open$/);
    appendFileSync(transcript, `${assistant('msg_3', 'req_3', [100, 20, 300, 400])}\n`);
    expect(await read()).toEqual(NOTHING);
    expect(await h.status()).toMatchObject({ tripped: false });

    // Another session does, once there is something new to summarize.
    await h.op({ op: 'record', job: h.job, kind: 'prompt', text: 'now the tests' });
    const other = join(dir, 'sess-2.jsonl');
    writeFileSync(other, `${assistant('msg_9', 'req_9', [100, 20, 200, 300])}\n`);
    expect(deniedReason(await read('sess-2', other))).toContain('context use reached 60%');
    expect(await h.status()).toMatchObject({ tripped: true, reason: 'context' });
  });

  it('a context use of exactly TRIGGER_CONTEXT_PERCENT trips the gate whatever the rounding', async () => {
    const h = await setup(['TOKEN_ENCODING=words', 'TOKEN_THRESHOLD=100000', 'TRIGGER_CONTEXT_PERCENT=57', 'CONTEXT_WINDOW=1000']);
    await h.op({ op: 'record', job: h.job, kind: 'prompt', text: 'start the parser work' });
    const transcript = join(h.box.dir, 'sess-1.jsonl');
    writeFileSync(transcript, `${assistant('msg_1', 'req_1', [70, 20, 200, 300])}\n`); // 570 of 1000
    const answer = await h.hook(preToolUse(h, 'Read', { file_path: 'src/a.ts' }, { transcript_path: transcript }));
    expect(answer.stdout).toContain("the agent's context use reached 57% of its window (limit 57%)");
  });
});

describe('usage and report', () => {
  it("records the model's usage once per message and agent, and recap report sums it per job and agent", async () => {
    const h = await setup(['TOKEN_ENCODING=words', 'TOKEN_THRESHOLD=100000']);
    const dir = join(h.box.dir, 'transcripts');
    mkdirSync(dir);
    const transcript = join(dir, 'sess-1.jsonl');
    const base = { session_id: 'sess-1', transcript_path: transcript, cwd: h.box.project };
    const prompt = 'Add a parser for the config file and report each error with its line.';

    writeFileSync(
      transcript,
      [
        assistant('msg_1', 'req_1', [100, 20, 200, 300]),
        // The same message again (Claude Code writes a line per content block).
        assistant('msg_1', 'req_1', [100, 20, 200, 300]),
        assistant('msg_syn', 'req_syn', [5000, 5000, 5000, 5000], { model: '<synthetic>' }),
        assistant('msg_sub', 'req_sub', [7, 3, 11, 13], { isSidechain: true, agentId: 'agent-a1' }),
        '',
      ].join('\n'),
    );
    expect(await h.hook({ ...base, hook_event_name: 'UserPromptSubmit', prompt })).toEqual(NOTHING);
    // The hook runs again, with the same message written once more and a new one.
    appendFileSync(transcript, `${assistant('msg_1', 'req_1', [100, 20, 200, 300])}\n${assistant('msg_2', 'req_2', [5, 6, 7, 8])}\n`);
    expect(await h.hook(preToolUse(h, 'Read', { file_path: 'a.ts' }, base))).toEqual(NOTHING);
    expect(await h.hook(preToolUse(h, 'Read', { file_path: 'a.ts' }, base))).toEqual(NOTHING);

    // A note that does not count, a denial, a rejection and a summary.
    await h.record('a note on the side', 'note');
    await h.op({ op: 'trip', job: h.job });
    deniedReason(await h.hook(preToolUse(h, 'Read', { file_path: 'a.ts' }, base)));
    expect(await h.submit('## User Requests\ntoo short')).toMatchObject({ accepted: false });
    expect(await h.submit(goodSummary())).toMatchObject({ accepted: true });

    const { jobs } = await h.json<{ jobs: JobReport[] }>(['report']);
    expect(jobs).toEqual([
      {
        job: h.job,
        summaries: 1,
        rejections: 1,
        agents: [
          { agent: 'agent-a1', interactions: 0, countedTokens: 0, denials: 0, input: 7, output: 3, cacheCreation: 11, cacheRead: 13 },
          { agent: 'main', interactions: 2, countedTokens: words(prompt), denials: 1, input: 105, output: 26, cacheCreation: 207, cacheRead: 308 },
        ],
      },
    ]);

    const table = await h.cli(['report']);
    expect(table.code).toBe(0);
    const [head, ...rows] = table.stdout.trim().split('\n');
    expect(head).toContain('interactions');
    expect(head).toContain('model input');
    expect(rows.some((r) => r.includes(h.job) && /\bmain\b/.test(r) && /\b105\b/.test(r))).toBe(true);

    // --since leaves out what came before.
    const before = Date.now();
    while (Date.now() <= before) {
      /* a millisecond passes: every event so far is older than `since` */
    }
    const since = new Date(Date.now()).toISOString();
    appendFileSync(transcript, `${assistant('msg_3', 'req_3', [1, 2, 3, 4])}\n`);
    // The first hook answer after the summary tells the user it was accepted.
    expect(noticeIn(await h.hook({ ...base, hook_event_name: 'UserPromptSubmit', prompt: 'one more thing' }))).toMatch(/was accepted/);
    const recent = await h.json<{ jobs: JobReport[] }>(['report', '--since', since]);
    expect(recent.jobs).toEqual([
      {
        job: h.job,
        summaries: 0,
        rejections: 0,
        agents: [{ agent: 'main', interactions: 1, countedTokens: words('one more thing'), denials: 0, input: 1, output: 2, cacheCreation: 3, cacheRead: 4 }],
      },
    ]);
  });

  it("a subagent's denials and its model usage are reported on one row", async () => {
    const h = await setup(['TOKEN_ENCODING=words', 'TOKEN_THRESHOLD=100000']);
    const dir = join(h.box.dir, 'transcripts');
    mkdirSync(dir);
    // Claude Code keeps a subagent's turns in a transcript of its own, each line marked with its agentId.
    const transcript = join(dir, 'agent-a1.jsonl');
    writeFileSync(transcript, `${assistant('msg_sub', 'req_sub', [7, 3, 11, 13], { isSidechain: true, agentId: 'a1' })}\n`);
    await h.op({ op: 'record', job: h.job, kind: 'prompt', text: 'look around', agent: 'a1' });
    await h.op({ op: 'trip', job: h.job });
    const subagent = { session_id: 'sess-1', transcript_path: transcript, agent_id: 'a1', agent_type: 'Explore' };
    deniedReason(await h.hook(preToolUse(h, 'Read', { file_path: 'a.ts' }, subagent)));

    const { jobs } = await h.json<{ jobs: JobReport[] }>(['report']);
    expect(jobs[0]!.agents).toEqual([{ agent: 'a1', interactions: 1, countedTokens: words('look around'), denials: 1, input: 7, output: 3, cacheCreation: 11, cacheRead: 13 }]);
  });
});

describe('topics', () => {
  it('recap submit --topic keeps a chain of its own, from the genesis hash, shown apart in the memory', async () => {
    // Room for every summary: the budget is shared between the chains.
    const h = await setup(['TOKEN_ENCODING=words', 'TOKEN_THRESHOLD=100000', 'CONTEXT_BUDGET=8000']);
    let from = 0;
    const accepted = async (marker: string, topic?: string) => {
      await h.record(`${marker} ${prose(1)}`);
      const text = marked(marker, from);
      from += 15;
      if (topic === undefined) {
        const answer = await h.submit(text);
        expect(answer).toMatchObject({ accepted: true });
        return answer.entry!;
      }
      const result = await h.cli(['submit', '--topic', topic, '--json'], text);
      expect(result.code, result.stderr).toBe(0);
      return (JSON.parse(result.stdout) as { entry: Entry }).entry;
    };
    const main1 = await accepted('Main-one.');
    expect(main1.prevHash).toBe(GENESIS);
    const main2 = await accepted('Main-two.');
    expect(main2.prevHash).toBe(main1.hash);
    const auth1 = await accepted('Auth-one.', 'auth');
    expect(auth1).toMatchObject({ topic: 'auth', prevHash: GENESIS });
    const auth2 = await accepted('Auth-two.', 'auth');
    expect(auth2).toMatchObject({ topic: 'auth', prevHash: auth1.hash });
    const main3 = await accepted('Main-three.');
    expect(main3.prevHash).toBe(main2.hash);
    expect((await h.chain()).map((e) => e.topic)).toEqual([undefined, undefined, 'auth', 'auth', undefined]);

    // The memory has a part per chain, each with its own summaries.
    const memory = (await h.cli(['context'])).stdout;
    const mainPart = memory.indexOf(`recap: the memory of job ${h.job}: 3 summaries in its chain.`);
    const authPart = memory.indexOf(`recap: the memory of job ${h.job}, topic auth: 2 summaries in its chain.`);
    expect(mainPart).toBeGreaterThanOrEqual(0);
    expect(authPart).toBeGreaterThanOrEqual(0);
    const part = (at: number) => memory.slice(at, Math.max(mainPart, authPart) === at ? undefined : Math.max(mainPart, authPart));
    for (const m of ['Main-one.', 'Main-two.', 'Main-three.']) expect(part(mainPart)).toContain(m);
    for (const m of ['Auth-one.', 'Auth-two.']) expect(part(authPart)).toContain(m);
    expect(part(mainPart)).not.toContain('Auth-');
    expect(part(authPart)).not.toContain('Main-');
  });

  it('the main chain comes first in the memory, before its topics', async () => {
    const h = await setup(['TOKEN_ENCODING=words', 'TOKEN_THRESHOLD=100000']);
    await h.record('a prompt');
    expect(await h.submit(marked('Main-one.', 0))).toMatchObject({ accepted: true });
    await h.record('another prompt');
    expect(await h.submit(marked('Auth-one.', 15), 'auth')).toMatchObject({ accepted: true });
    const { text } = await h.op<{ text: string }>({ op: 'context', job: h.job });
    expect(text.split('\n')[0]).toBe(`recap: the memory of job ${h.job}: 1 summaries in its chain.`);
  });
});

describe("Claude Code's own turns, its compaction and its model's window", () => {
  const FAST = ['TOKEN_ENCODING=words', 'TOKEN_THRESHOLD=100000'];
  const prompt = (h: Harness, text: string, extra: Record<string, unknown> = {}) =>
    h.hook({ session_id: 'sess-1', cwd: h.box.project, hook_event_name: 'UserPromptSubmit', prompt: text, ...extra });
  const recorded = async (h: Harness) => {
    const events = await h.op<{ events: { type: string; data: { kind?: string; text?: string; counted?: boolean } }[] }>({
      op: 'events',
      job: h.job,
      types: ['InteractionRecorded'],
    });
    return events.events.map((e) => ({ kind: e.data.kind, counted: e.data.counted, text: e.data.text }));
  };

  it("a background task's notification is recorded as task-notification and not counted; the user's prompts are", async () => {
    const h = await setup(FAST);
    await prompt(h, 'Run the tests in the background and tell me when they finish.');
    const before = (await h.status()).unsummarizedTokens;
    const notification = '<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n<summary>Background command "npm test" completed</summary>\n</task-notification>';
    expect(await prompt(h, notification)).toEqual(NOTHING);
    expect((await h.status()).unsummarizedTokens).toBe(before);
    expect(await recorded(h)).toEqual([
      { kind: 'prompt', counted: true, text: 'Run the tests in the background and tell me when they finish.' },
      { kind: 'task-notification', counted: false, text: notification },
    ]);
  });

  it('a /loop wakeup, which repeats what the /loop asked for, is recorded as loop-wakeup; the same words in another session are a prompt', async () => {
    const h = await setup(FAST);
    await prompt(h, '/loop 5m check the build');
    await prompt(h, 'check the build');
    await prompt(h, 'check the build', { session_id: 'sess-2' });
    expect((await recorded(h)).map(({ kind, counted }) => [kind, counted])).toEqual([
      ['prompt', true],
      ['loop-wakeup', false],
      ['prompt', true],
    ]);
  });

  it("a prompt the transcript already shows with a machine turnOrigin is recorded as that turn's kind", async () => {
    const h = await setup(FAST);
    const transcript = join(h.box.dir, 'sess-1.jsonl');
    writeFileSync(
      transcript,
      `${JSON.stringify({ type: 'user', turnOrigin: 'scheduled', wakeupSource: 'loop_wakeup', isMeta: true, message: { role: 'user', content: 'look at the queue' } })}\n`,
    );
    await prompt(h, 'look at the queue', { transcript_path: transcript });
    appendFileSync(transcript, `${JSON.stringify({ type: 'user', turnOrigin: 'human', message: { role: 'user', content: 'look at the logs' } })}\n`);
    await prompt(h, 'look at the logs', { transcript_path: transcript });
    expect((await recorded(h)).map(({ kind, counted }) => [kind, counted])).toEqual([
      ['loop-wakeup', false],
      ['prompt', true],
    ]);
  });

  it("PostCompact's compaction summary is recorded as compact-summary, uncounted, and SessionStart after a compaction hands the memory back", async () => {
    const h = await setup([...FAST, 'REQUIRED_SECTIONS=("Notes")', 'MIN_TOKENS_PER_SECTION=1', 'SUMMARY_MIN_TOKENS=1']);
    await prompt(h, 'first prompt of the session');
    expect(await h.submit('Gist: the parser work, first window\n\n## Notes\nThe parser reads quoted values and reports each mistake with its line.')).toMatchObject({
      accepted: true,
    });
    const summary = '<analysis>the user wants a parser</analysis>\n<summary>1. Primary Request: a parser.</summary>';
    const compacted = await h.hook({ session_id: 'sess-1', cwd: h.box.project, hook_event_name: 'PostCompact', trigger: 'auto', compact_summary: summary });
    expect(noticeIn(compacted)).toMatch(/was accepted/);
    expect((await recorded(h)).at(-1)).toEqual({ kind: 'compact-summary', counted: false, text: summary });
    expect((await h.status()).unsummarizedTokens).toBe(0);

    const memory = additionalContext(
      await h.hook({ session_id: 'sess-1', cwd: h.box.project, hook_event_name: 'SessionStart', source: 'compact', model: 'claude-opus-5-5' }),
      'SessionStart',
    );
    expect(memory).toContain(`recap: the memory of job ${h.job}: 1 summaries in its chain.`);
    expect(memory).toContain('The parser reads quoted values');
  });

  it('TRIGGER_CONTEXT_PERCENT uses the window of the model in use: 1,000,000 for claude-opus-5-5, 200,000 for claude-sonnet-4-5, or what the status line told', async () => {
    const h = await setup([...FAST, 'TRIGGER_CONTEXT_PERCENT=50']);
    await prompt(h, 'start the parser work');
    const readIn = async (session: string, model: string) => {
      const transcript = join(h.box.dir, `${session}.jsonl`);
      writeFileSync(transcript, `${assistant(`msg-${session}`, `req-${session}`, [100, 10, 0, 300_000], { model })}\n`);
      return h.hook(preToolUse(h, 'Read', { file_path: 'src/a.ts' }, { session_id: session, transcript_path: transcript }));
    };
    // 300,100 tokens: 30% of the default model's 1,000,000.
    expect(await readIn('opus', 'claude-opus-5-5')).toEqual(NOTHING);
    expect(await h.status()).toMatchObject({ tripped: false });

    // The status line says this session's model has 400,000: 75%.
    const line = await runCli(h.box, ['statusline'], { input: JSON.stringify({ session_id: 'told', cwd: h.box.project, context_window: { context_window_size: 400_000 } }) });
    expect(line.stdout).toMatch(/^recap \d+\/100000\n$/);
    expect(deniedReason(await readIn('told', 'claude-opus-5-5'))).toMatch(/context/);
    expect(await h.status()).toMatchObject({ tripped: true, reason: 'context' });
    expect((await runCli(h.box, ['statusline'], { input: JSON.stringify({ session_id: 'told', cwd: h.box.project }) })).stdout).toBe('recap: summary needed\n');
  });

  it("a CONTEXT_WINDOW the user set wins over the model's window", async () => {
    const h = await setup([...FAST, 'TRIGGER_CONTEXT_PERCENT=50', 'CONTEXT_WINDOW=400000']);
    await prompt(h, 'start the parser work');
    const transcript = join(h.box.dir, 'opus.jsonl');
    writeFileSync(transcript, `${assistant('msg-1', 'req-1', [100, 10, 0, 300_000], { model: 'claude-opus-5-5' })}\n`);
    const answer = await h.hook(preToolUse(h, 'Read', { file_path: 'src/a.ts' }, { session_id: 'opus', transcript_path: transcript }));
    expect(deniedReason(answer)).toMatch(/context/);
  });

  it('the 200,000-token window of claude-sonnet-4-5 trips at the same context use', async () => {
    const h = await setup([...FAST, 'TRIGGER_CONTEXT_PERCENT=50']);
    await prompt(h, 'start the parser work');
    const transcript = join(h.box.dir, 'sonnet.jsonl');
    writeFileSync(transcript, `${assistant('msg-1', 'req-1', [100, 10, 0, 150_000], { model: 'claude-sonnet-4-5' })}\n`);
    const answer = await h.hook(preToolUse(h, 'Read', { file_path: 'src/a.ts' }, { session_id: 'sonnet', transcript_path: transcript }));
    expect(deniedReason(answer)).toMatch(/context/);
  });

  it('recap statusline puts the user’s own status line first, and says so when no daemon runs', async () => {
    const h = await setup(FAST);
    const input = JSON.stringify({ session_id: 'sess-1', cwd: h.box.project });
    const composed = await runCli(h.box, ['statusline', '--with', 'echo "main * $(cat | head -c 1)"'], { input });
    expect(composed.code).toBe(0);
    expect(composed.stdout).toMatch(/^main \* \{ \| recap 0\/100000\n$/);
    await h.daemon.stop();
    const down = await runCli(h.box, ['statusline'], { input });
    expect(down).toMatchObject({ code: 0, stdout: 'recap: not running\n' });
  });
});
