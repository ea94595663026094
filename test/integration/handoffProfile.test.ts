// PROFILE=handoff against the real daemon, driven through the real CLI: the gate asks for the
// handoff format (its sub-structure, its band, User Directives as quotes), a faithful handoff
// summary that quotes the user's prompts word for word is accepted, and one with a quote the
// user never wrote is refused, naming it, with the way out still open.
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { QUOTE_FORM } from '../../src/events/summaryQuotes.js';
import { RawClient, removedAfterEach, runCli, sandbox, startDaemon } from '../helpers/daemon.js';
import { notes } from '../helpers/text.js';

const { boxes, daemons, clients } = removedAfterEach();

type Status = { tripped: boolean; summaries: number };

/** A sandbox whose config file holds `lines`, its daemon, and the CLI and socket for the project's job. */
async function setup(lines: string[]) {
  const box = sandbox();
  boxes.push(box);
  writeFileSync(box.config, `${lines.join('\n')}\n`);
  daemons.push(await startDaemon(box));
  const client = await RawClient.connect(box.socket);
  clients.push(client);
  const job = jobIdFor(box.project);
  let nextId = 1;
  async function op<T>(request: Record<string, unknown>): Promise<T> {
    const response = await client.request({ id: nextId++, job, ...request });
    expect(response.error, JSON.stringify(response.error)).toBeUndefined();
    return response.result as T;
  }
  return {
    record: (text: string) => op<{ gate: { tripped: boolean } }>({ op: 'record', kind: 'prompt', text }),
    status: () => op<Status>({ op: 'status' }),
    /** `recap check` of a Read, as the hook asks it: the deny reason the agent reads. */
    denied: async () => (await runCli(box, ['check', '--tool', 'Read', '--input', '{"file_path":"src/a.ts"}', '--job', job])).stderr,
    /** `recap submit`, as the agent runs it: the problems on stderr, one per line (exit 2). */
    submit: async (text: string) => {
      const result = await runCli(box, ['submit', '--job', job], { input: text });
      const problems = result.stderr
        .trim()
        .split('\n')
        .filter((l) => l !== '' && l !== 'rejected:');
      return { code: result.code, problems };
    },
  };
}

const PROMPTS = [
  'Write the config reader in src/config/reader.ts and report every problem in a file at once, never only the first one.\n' +
    'Keep the messages in the compiler format: path, line, column and text.',
  'Do not add an include directive. Approving project files has to stay simple.',
];

/** The user's directives, quoted from the prompts recorded: a prompt of two lines as a block, and one sentence of another. */
const DIRECTIVES = [
  '> Write the config reader in src/config/reader.ts and report every problem in a file at once, never only the first one.',
  '> Keep the messages in the compiler format: path, line, column and text.',
  '',
  '- "Do not add an include directive."',
];

/** A handoff summary as the template asks for it, in about 1,100 tokens (words x 1.3): tasks, goal / state / next step, decision — reason. */
function handoffSummary(directives: string[]): string {
  return [
    `Gist: ${notes(1, 100)}`,
    '## Completed Tasks',
    `### Every problem at once\n${notes(5, 0)}`,
    `### Positions in messages\n${notes(5, 5)}`,
    `### Arrays and quoting\n${notes(5, 10)}`,
    '## Active Task',
    `Goal: ${notes(2, 15)}\nState: ${notes(4, 17)}\nNext step: ${notes(2, 21)}`,
    '## Key Decisions',
    [23, 25, 27, 29, 31].map((i) => `- ${notes(1, i)} — ${notes(1, i + 1)}`).join('\n'),
    '## User Directives',
    directives.join('\n'),
    '## Current Work',
    `The reader in src/config/reader.ts is where the work stands. ${notes(12, 33)}`,
  ].join('\n\n');
}

describe('PROFILE=handoff', () => {
  it('asks for the handoff format, refuses a directive the user never wrote, and accepts the summary that quotes the prompts recorded', async () => {
    const h = await setup(['TOKEN_ENCODING=words', 'TOKEN_THRESHOLD=20', 'PROFILE=handoff']);
    for (const prompt of PROMPTS) await h.record(prompt);
    expect(await h.status()).toMatchObject({ tripped: true, summaries: 0 });

    const reason = await h.denied();
    expect(reason).toContain('## Completed Tasks\n### <task>');
    expect(reason).toContain('## Active Task\nGoal: <what the user wants done>');
    expect(reason).toContain('## Key Decisions\n- <decision> — <reason>');
    expect(reason).toContain(`## User Directives\n${QUOTE_FORM}`);
    expect(reason).toContain('1000 to 2000 tokens in total');

    const invented = await h.submit(handoffSummary([...DIRECTIVES, '- "Always print a stack trace with every error."']));
    expect(invented.code).toBe(2);
    expect(invented.problems).toEqual([
      `User Directives quotes "Always print a stack trace with every error.", which is not in the user's prompts since the last summary: ` +
        `quote the user's exact words as they wrote them (a whole line or sentence, or at least 3 words in a row), or say it without quotation marks, in your own words`,
    ]);
    expect(await h.status()).toMatchObject({ tripped: true, summaries: 0 });

    // The way out: the same summary with the invented quote taken out.
    const faithful = await h.submit(handoffSummary(DIRECTIVES));
    expect(faithful).toEqual({ code: 0, problems: [] });
    expect(await h.status()).toMatchObject({ tripped: false, summaries: 1 });
  });
});
