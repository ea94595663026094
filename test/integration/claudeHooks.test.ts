// Claude Code's hooks mapped onto recap, through the daemon's `hook` op on the raw socket:
// prompts and answered questions are recorded, tool calls are checked, a new session is
// handed the job's memory, and anything unexpected gets a harmless answer and a warning.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { RawClient, removeSandbox, runCli, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { goodSummary, prose } from '../helpers/text.js';
import { additionalContext, deniedReason, NOTHING, type HookAnswer } from '../helpers/hookAnswers.js';

type Status = { job: string; tripped: boolean; reason?: string; unsummarizedTokens: number; unsummarizedInteractions: number; threshold: number; summaries: number };

const WARN = 40;

describe('Claude Code hooks through the daemon', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let client: RawClient;
  let projects: string;
  let nextId = 1;

  beforeAll(async () => {
    box = sandbox();
    // Projects live in a folder of their own, apart from the sandbox holding recap's files.
    projects = mkdtempSync(join(tmpdir(), 'claude-hooks-'));
    daemon = await startDaemon(box);
    client = await RawClient.connect(box.socket);
  });
  afterAll(async () => {
    client?.close();
    await daemon?.stop();
    removeSandbox(box);
    rmSync(projects, { recursive: true, force: true });
  });

  /** A fresh git project, and its job. */
  function project(name: string): { dir: string; job: string } {
    const dir = join(projects, name);
    mkdirSync(join(dir, '.git'), { recursive: true });
    return { dir, job: jobIdFor(dir) };
  }

  async function op<T>(request: Record<string, unknown>): Promise<T> {
    const response = await client.request({ id: nextId++, ...request });
    expect(response.error, JSON.stringify(response.error)).toBeUndefined();
    return response.result as T;
  }

  const hook = (payload: unknown) => op<HookAnswer>({ op: 'hook', agent: 'claude', payload });
  const status = (job: string) => op<Status>({ op: 'status', job });

  // Each folder its own session: a session keeps the job of the folder it was first seen in.
  const base = (cwd: string, session = `sess-${jobIdFor(cwd)}`) => ({
    session_id: session,
    transcript_path: `/tmp/transcripts/${session}.jsonl`,
    cwd,
    permission_mode: 'default',
  });
  const prompt = (cwd: string, text: string, session?: string) => ({ ...base(cwd, session), hook_event_name: 'UserPromptSubmit', prompt: text });
  const preToolUse = (cwd: string, tool_name: string, tool_input: unknown) => ({
    ...base(cwd),
    hook_event_name: 'PreToolUse',
    tool_name,
    tool_input,
    tool_use_id: `toolu_${nextId}`,
  });
  const sessionStart = (cwd: string, source = 'startup') => ({ ...base(cwd), hook_event_name: 'SessionStart', source });

  const QUESTIONS = [
    {
      question: 'Which parser should the config loader use?',
      header: 'Parser',
      options: [
        { label: 'Hand-written', description: 'A small parser of our own' },
        { label: 'A library', description: 'Pull in a dependency' },
      ],
      multiSelect: false,
    },
    {
      question: 'Which formats must it read?',
      header: 'Formats',
      options: [
        { label: 'shell', description: 'KEY=value lines' },
        { label: 'json', description: 'JSON files' },
        { label: 'yaml', description: 'YAML files' },
      ],
      multiSelect: true,
    },
  ];
  const askUserQuestionUsed = (cwd: string) => ({
    ...base(cwd),
    hook_event_name: 'PostToolUse',
    tool_name: 'AskUserQuestion',
    tool_use_id: 'toolu_ask_1',
    tool_input: { questions: QUESTIONS },
    tool_response: {
      questions: QUESTIONS,
      answers: { 'Which parser should the config loader use?': 'Hand-written', 'Which formats must it read?': 'shell, json' },
      annotations: {},
      extraFieldFromANewerVersion: true,
    },
  });

  describe('UserPromptSubmit', () => {
    it('records the prompt in the job of the payload cwd, and answers nothing while the gate is open', async () => {
      const { dir, job } = project('prompts');
      expect(await hook(prompt(dir, 'Add a parser for the config file that reports each error with its line.'))).toEqual(NOTHING);
      const after = await status(job);
      expect(after).toMatchObject({ job, tripped: false, unsummarizedInteractions: 1 });
      expect(after.unsummarizedTokens).toBeGreaterThan(10);

      // A subfolder of the project is the same job.
      mkdirSync(join(dir, 'src', 'deep'), { recursive: true });
      expect(await hook(prompt(join(dir, 'src', 'deep'), 'And test it.'))).toEqual(NOTHING);
      expect((await status(job)).unsummarizedInteractions).toBe(2);

      const cli = await runCli(box, ['status', '--json', '--job', job]);
      expect(JSON.parse(cli.stdout)).toMatchObject({ job, unsummarizedInteractions: 2 });
    });

    it('an empty prompt gets a harmless answer and records nothing', async () => {
      const { dir, job } = project('empty-prompt');
      expect(await hook(prompt(dir, '   '))).toEqual(NOTHING);
      expect((await status(job)).unsummarizedInteractions).toBe(0);
    });
  });

  describe('a job that asks a question, trips, is gated and summarizes', () => {
    let dir: string;
    let job: string;

    beforeAll(() => {
      ({ dir, job } = project('questions'));
    });

    it('PostToolUse on AskUserQuestion records one qa interaction', async () => {
      expect(await hook(prompt(dir, 'Build the config loader.'))).toEqual(NOTHING);
      expect(await hook(askUserQuestionUsed(dir))).toEqual(NOTHING);
      expect(await status(job)).toMatchObject({ unsummarizedInteractions: 2, tripped: false });
    });

    it('PostToolUse on other tools records nothing', async () => {
      const used = (tool_name: string, tool_input: unknown, tool_response: unknown) => ({
        ...base(dir),
        hook_event_name: 'PostToolUse',
        tool_name,
        tool_input,
        tool_response,
        tool_use_id: 'toolu_x',
      });
      expect(await hook(used('Bash', { command: 'ls' }, { stdout: 'a\nb', stderr: '', interrupted: false }))).toEqual(NOTHING);
      expect(await hook(used('Read', { file_path: join(dir, 'a.ts') }, { type: 'text', file: { content: prose(40) } }))).toEqual(NOTHING);
      expect(await hook(used('Write', { file_path: join(dir, 'b.ts'), content: prose(40) }, {}))).toEqual(NOTHING);
      // AskUserQuestion without any question to record.
      expect(await hook(used('AskUserQuestion', { questions: [] }, { answers: {} }))).toEqual(NOTHING);
      expect(await hook(used('AskUserQuestion', { nothing: 'here' }, { answers: { a: 'b' } }))).toEqual(NOTHING);
      expect((await status(job)).unsummarizedInteractions).toBe(2);
    });

    it('a prompt that reaches the threshold trips the gate and is told so', async () => {
      const answer = await hook(prompt(dir, prose(30)));
      const context = additionalContext(answer, 'UserPromptSubmit');
      expect(context).toContain(`recap: job ${job} needs a summary`);
      // The figures once each: the tokens and the threshold they reached.
      expect(context).toMatch(/needs a summary before any other tool can run \(\d+ unsummarized tokens, threshold 500\)\. Run /);
      expect(context).toContain('recap context');
      expect(await status(job)).toMatchObject({ tripped: true, reason: 'threshold', unsummarizedInteractions: 3 });
    });

    it('recap context shows the qa interaction with both the questions and the answers', async () => {
      const result = await runCli(box, ['context', '--job', job]);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/\[#\d+ qa, \d+ tokens\]/);
      expect(result.stdout).toContain('Q: Which parser should the config loader use?\nA: Hand-written');
      expect(result.stdout).toContain('Q: Which formats must it read?\nA: shell, json');
      expect(result.stdout).toContain('Build the config loader.');
    });

    it.each([
      ['Agent', { description: 'explore', prompt: 'look around', subagent_type: 'general-purpose' }],
      ['Task', { description: 'explore', prompt: 'look around' }],
      ['MultiEdit', { file_path: '/tmp/a.ts', edits: [{ old_string: 'a', new_string: 'b' }] }],
      ['mcp__github__create_issue', { owner: 'o', repo: 'r', title: 't' }],
      ['WebFetch', { url: 'https://example.com', prompt: 'read it' }],
      ['WebSearch', { query: 'how to avoid summaries' }],
      ['Write', { file_path: '/tmp/a.ts', content: 'x' }],
      ['Read', { file_path: '/etc/hosts' }],
      ['Bash', { command: 'ls', description: 'list' }],
      ['Bash', { command: 'recap status && rm -rf /tmp/x' }],
      ['AskUserQuestion', { questions: QUESTIONS }],
    ])('then PreToolUse denies %s with a reason saying what to do', async (tool, input) => {
      const reason = deniedReason(await hook(preToolUse(dir, tool, input)));
      expect(reason).toContain(`job ${job}`);
      expect(reason).toMatch(/unsummarized tokens reached the threshold of 500/);
      expect(reason).toContain("recap submit <<'EOF'");
      expect(reason).toContain('## Current State');
      expect(reason.length).toBeLessThan(10_000);
    });

    it.each(['status', 'context', 'chain --json'])('then PreToolUse allows Bash "<launcher> %s"', async (subcommand) => {
      const command = `${join(box.data, 'bin', 'recap')} ${subcommand}`;
      expect(await hook(preToolUse(dir, 'Bash', { command, description: 'check recap' }))).toEqual(NOTHING);
    });

    it('SessionStart while tripped hands over the demand for a summary', async () => {
      const context = additionalContext(await hook(sessionStart(dir)), 'SessionStart');
      expect(context).toContain(`recap: job ${job} needs a summary`);
      expect(context).toContain("recap submit <<'EOF'");
      expect(context).toContain('Q: Which parser should the config loader use?');
    });

    it('SessionStart after an accepted summary hands over the memory, and tools pass again', async () => {
      const submitted = await op<{ accepted: boolean; problems?: string[] }>({ op: 'submit', job, text: goodSummary() });
      expect(submitted, JSON.stringify(submitted)).toMatchObject({ accepted: true });
      for (const source of ['startup', 'resume', 'clear', 'compact']) {
        const context = additionalContext(await hook(sessionStart(dir, source)), 'SessionStart');
        expect(context).toContain(`recap: the memory of job ${job}: 1 summaries in its chain.`);
        expect(context).toContain('## User Requests');
        expect(context).toContain('The user asked for a parser');
      }
      expect(await hook(preToolUse(dir, 'Write', { file_path: join(dir, 'a.ts'), content: 'x' }))).toEqual(NOTHING);
      expect(await status(job)).toMatchObject({ tripped: false, summaries: 1, unsummarizedInteractions: 0 });
    });
  });

  describe('SessionStart and PreToolUse on a fresh job', () => {
    it('SessionStart with no summary and an open gate adds nothing', async () => {
      const { dir } = project('fresh');
      expect(await hook(sessionStart(dir))).toEqual(NOTHING);
    });

    it("PreToolUse denies recap's own files and setup commands even with the gate open", async () => {
      const { dir, job } = project('protected');
      const read = deniedReason(await hook(preToolUse(dir, 'Read', { file_path: join(box.data, 'log', 'CURRENT') })));
      expect(read).toContain("touches recap's own files");
      expect(read).toContain('recap context');
      const edit = deniedReason(await hook(preToolUse(dir, 'Edit', { file_path: '.recap/config.conf', old_string: 'a', new_string: 'b' })));
      expect(edit).toContain(join(dir, '.recap'));
      const bash = deniedReason(await hook(preToolUse(dir, 'Bash', { command: 'cd /tmp && recap uninstall claude' })));
      expect(bash).toContain("recap uninstall changes recap's setup");
      expect(await hook(preToolUse(dir, 'Read', { file_path: join(dir, 'README.md') }))).toEqual(NOTHING);
      expect(await status(job)).toMatchObject({ tripped: false, unsummarizedInteractions: 0 });
    });
  });

  describe('which job a payload belongs to', () => {
    it('two project folders are two jobs', async () => {
      const one = project('alpha');
      const two = project('beta');
      expect(one.job).not.toBe(two.job);
      await hook(prompt(one.dir, 'First project, first prompt.'));
      await hook(prompt(two.dir, 'Second project, first prompt.'));
      await hook(prompt(two.dir, 'Second project, second prompt.'));
      expect((await status(one.job)).unsummarizedInteractions).toBe(1);
      expect((await status(two.job)).unsummarizedInteractions).toBe(2);
    });

    it('with JOB_SCOPE=session in the project config, each session_id is its own job', async () => {
      const { dir, job } = project('per-session');
      mkdirSync(join(dir, '.recap'), { recursive: true });
      writeFileSync(join(dir, '.recap', 'config.conf'), 'JOB_SCOPE=session\n');
      // A project file's JOB_SCOPE has no safe direction: it applies once the user approves it.
      expect((await runCli(box, ['config', 'allow'], { cwd: dir })).code).toBe(0);
      await hook(prompt(dir, 'A prompt in session one.', 'sess-one'));
      await hook(prompt(dir, 'Another prompt in session one.', 'sess-one'));
      await hook(prompt(dir, 'A prompt in session two.', 'sess-two'));
      await hook(prompt(dir, 'An odd session id.', 'a/b c'));
      expect((await status('session-sess-one')).unsummarizedInteractions).toBe(2);
      expect((await status('session-sess-two')).unsummarizedInteractions).toBe(1);
      expect((await status('session-a_b_c')).unsummarizedInteractions).toBe(1);
      expect((await status(job)).unsummarizedInteractions).toBe(0);
    });
  });

  describe('payloads recap does not handle', () => {
    let dir: string;
    let job: string;
    beforeAll(() => {
      ({ dir, job } = project('odd-payloads'));
    });

    it.each([
      ['Stop', { stop_hook_active: false }],
      ['Notification', { message: 'Claude needs your permission' }],
      ['SubagentStop', {}],
      ['SubagentStart', { agent_id: 'agent-1', agent_type: 'Explore' }],
    ])('an unknown hook_event_name (%s) gets a harmless answer and a warning', async (name, extra) => {
      expect(await hook({ ...base(dir), hook_event_name: name, ...extra })).toEqual(NOTHING);
      const warning = await daemon.waitForLog((l) => l.msg === 'ignoring a Claude Code hook event recap does not handle' && l.event === name);
      expect(warning.level).toBe(WARN);
    });

    it('a UserPromptSubmit without cwd gets a harmless answer, records nothing, and is warned about', async () => {
      const { cwd: _dropped, ...noCwd } = prompt(dir, 'This prompt has no folder.');
      expect(await hook(noCwd)).toEqual(NOTHING);
      const warning = await daemon.waitForLog(
        (l) => l.msg === 'ignoring a Claude Code hook payload of an unexpected shape' && l.event === 'UserPromptSubmit' && String(l.problems).includes('cwd'),
      );
      expect(warning.level).toBe(WARN);
    });

    it('a PreToolUse whose tool_name is a number is judged as an unknown tool (allowed on an open gate) and warned about', async () => {
      expect(await hook({ ...preToolUse(dir, 'Read', {}), tool_name: 42 })).toEqual(NOTHING);
      const warning = await daemon.waitForLog(
        (l) => l.msg === 'judging a Claude Code tool call of an unexpected shape as an unknown tool' && String(l.problems).includes('tool_name'),
      );
      expect(warning.level).toBe(WARN);
    });

    it.each([
      ['a relative cwd', { hook_event_name: 'UserPromptSubmit', cwd: 'relative/folder', prompt: 'x' }],
      ['a prompt that is not a string', { hook_event_name: 'UserPromptSubmit', cwd: '/tmp', prompt: { text: 'x' } }],
      ['a PostToolUse without tool_name', { hook_event_name: 'PostToolUse', cwd: '/tmp', tool_input: {}, tool_response: {} }],
      ['a session_id that is too long', { hook_event_name: 'UserPromptSubmit', cwd: '/tmp', prompt: 'x', session_id: 'x'.repeat(300) }],
    ])('%s gets a harmless answer and a warning', async (_what, payload) => {
      const before = daemon.lines.length;
      expect(await hook(payload)).toEqual(NOTHING);
      const warning = await daemon.waitForLog(
        (l) => daemon.lines.indexOf(l) >= before && l.msg === 'ignoring a Claude Code hook payload of an unexpected shape' && l.event === payload.hook_event_name,
      );
      expect(warning.level).toBe(WARN);
    });

    it.each([
      ['null', null],
      ['a string', 'UserPromptSubmit'],
      ['an array', [{ hook_event_name: 'UserPromptSubmit' }]],
      ['a number for hook_event_name', { hook_event_name: 42, cwd: '/tmp' }],
      ['no hook_event_name', { cwd: '/tmp', prompt: 'x' }],
    ])('a payload that is %s gets a harmless answer and a warning', async (_what, payload) => {
      const before = daemon.lines.length;
      expect(await hook(payload)).toEqual(NOTHING);
      const warning = await daemon.waitForLog((l) => daemon.lines.indexOf(l) >= before && l.msg === 'ignoring a Claude Code hook event recap does not handle');
      expect(warning.level).toBe(WARN);
    });

    it('none of them recorded anything, and the daemon still answers', async () => {
      expect(await status(job)).toMatchObject({ unsummarizedInteractions: 0, unsummarizedTokens: 0, tripped: false });
      expect(await op<{ version: string }>({ op: 'ping' })).toHaveProperty('version');
    });

    it('an agent recap does not know is a bad request', async () => {
      const response = await client.request({ id: nextId++, op: 'hook', agent: 'no-such-agent', payload: prompt(dir, 'x') });
      expect(response.error).toMatchObject({ code: 'bad_request' });
      expect((await status(job)).unsummarizedInteractions).toBe(0);
    });
  });

  describe('concurrency', () => {
    it('50 parallel hook calls for one job, records and checks mixed, are all answered and counted exactly', async () => {
      const { dir, job } = project('parallel');
      const text = prose(2);
      const { tokens } = await op<{ tokens: number }>({ op: 'record', job: 'token-probe', kind: 'prompt', text });
      const clients = await Promise.all(Array.from({ length: 5 }, () => RawClient.connect(box.socket)));
      try {
        let id = 0;
        const sent: { client: number; id: number; kind: 'record' | 'check' }[] = [];
        for (let round = 0; round < 10; round += 1) {
          clients.forEach((c, index) => {
            id += 1;
            const kind = (round + index) % 2 === 0 ? 'record' : 'check';
            const payload = kind === 'record' ? prompt(dir, text, `sess-${index}`) : preToolUse(dir, 'Read', { file_path: join(dir, `f${id}.ts`) });
            c.send({ id, op: 'hook', agent: 'claude', payload });
            sent.push({ client: index, id, kind });
          });
        }
        const answers = (await Promise.all(clients.map((c) => c.received(10)))).flat();
        expect(answers).toHaveLength(50);
        expect(new Set(answers.map((a) => a.id))).toEqual(new Set(sent.map((s) => s.id)));
        for (const answer of answers) {
          expect(answer.error, JSON.stringify(answer)).toBeUndefined();
          const result = answer.result as HookAnswer;
          expect(result.exitCode).toBe(0);
          // An answer says something to the model, or (an allow raced past the trip) only tells the user the gate tripped.
          if (result.stdout !== '') {
            const output = JSON.parse(result.stdout) as { hookSpecificOutput?: unknown; systemMessage?: string };
            if (output.hookSpecificOutput === undefined) expect(output.systemMessage).toMatch(/^recap: the gate of job .* tripped/);
          }
        }
        const records = sent.filter((s) => s.kind === 'record').length;
        expect(records).toBe(25);
        const after = await status(job);
        expect(after.unsummarizedInteractions).toBe(records);
        expect(after.unsummarizedTokens).toBe(records * tokens);
        expect(after.tripped).toBe(records * tokens >= 500);
      } finally {
        for (const c of clients) c.close();
      }
    });
  });

  describe("recap's own folders", () => {
    // Regression: protectedPaths() once added the folder of RECAP_CONFIG whenever its name
    // merely contained "recap". Here that folder is the sandbox (recap-test-XXXX), which
    // also holds the project, so every project file was off limits, gate open or not.
    it('a project file in a folder that holds RECAP_CONFIG and has "recap" in its name is not protected', async () => {
      expect(await hook(preToolUse(box.project, 'Read', { file_path: join(box.project, 'README.md') }))).toEqual(NOTHING);
      const config = deniedReason(await hook(preToolUse(box.project, 'Read', { file_path: box.config })));
      expect(config).toContain(`(${box.config})`);
    });
  });
});
