// Gemini CLI's hooks through the real daemon and the real `bin/recap-hook.cjs gemini`, with
// the payloads Gemini CLI 0.61.0 sends (test/fixtures/agents/gemini): a prompt is recorded
// and counted without the context the CLI puts in front of it, a tool call is denied in Gemini
// CLI's format once the gate trips, the way out is answered by the hook itself (the session's
// job, which Gemini CLI's shell cannot name) and clears the gate, a question answered is
// recorded, recap's files and Gemini CLI's own setup stay off limits, and with the daemon
// stopped a tripped job is still denied from the verdict file.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { removeSandbox, ROOT, runCli, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { ATTACK_THRESHOLD, filledIn, submitCommandIn, TRIP_PROMPTS } from '../helpers/gateAttack.js';
import { FIXTURES } from '../helpers/hookRecorder.js';

const HOOK = join(ROOT, 'bin', 'recap-hook.cjs');
const SESSION = 'gemini-session-0001';

type Run = { stdout: string; stderr: string; exitCode: number | null };
type Status = { job: string; tripped: boolean; unsummarizedTokens: number; unsummarizedInteractions: number; summaries: number };

/** Runs `recap-hook gemini` as Gemini CLI does: the payload on stdin, stdin closed. */
function runHook(env: NodeJS.ProcessEnv, payload: unknown, cwd?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HOOK, 'gemini'], { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', reject);
    child.once('close', (exitCode) => resolve({ stdout, stderr, exitCode }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify(payload));
  });
}

/** The reason of a Gemini CLI deny: `{"decision":"deny","reason":...}` and exit 0. */
function deniedReason(run: Run): string {
  expect(run.exitCode, run.stderr).toBe(0);
  const output = JSON.parse(run.stdout) as { decision?: string; reason?: string };
  expect(output.decision, run.stdout).toBe('deny');
  expect(typeof output.reason).toBe('string');
  return output.reason!;
}

/** Gemini CLI runs the call: nothing, or JSON without a deny, and exit 0. */
function expectAllowed(run: Run): void {
  expect(run.exitCode, run.stderr).toBe(0);
  if (run.stdout !== '') expect((JSON.parse(run.stdout) as { decision?: string }).decision).toBeUndefined();
}

function contextOf(run: Run, event: string): string {
  expect(run.exitCode, run.stderr).toBe(0);
  const output = JSON.parse(run.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
  expect(output.hookSpecificOutput.hookEventName).toBe(event);
  return output.hookSpecificOutput.additionalContext;
}

let box: Sandbox;
let daemon: DaemonProcess;
let nextProject = 0;

/** A real payload of Gemini CLI, moved into a project of this sandbox. */
function fixture(name: string, cwd: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  const payload = JSON.parse(readFileSync(join(FIXTURES, 'gemini', `${name}.json`), 'utf8')) as Record<string, unknown>;
  return { ...payload, session_id: `${SESSION}-${cwd}`, cwd, transcript_path: join(box.dir, 'chats', 'session.jsonl'), ...fields };
}
const tool = (cwd: string, tool_name: string, tool_input: unknown) => fixture('BeforeTool-read_file', cwd, { tool_name, tool_input });
const prompt = (cwd: string, text: string) => fixture('BeforeAgent', cwd, { prompt: text });

function project(): { dir: string; job: string } {
  const dir = join(box.dir, `project-${(nextProject += 1)}`);
  mkdirSync(join(dir, '.git'), { recursive: true });
  return { dir, job: jobIdFor(dir) };
}

async function status(dir: string, args: string[] = []): Promise<Status> {
  const result = await runCli(box, ['status', '--json', ...args], { cwd: dir });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Status;
}

async function trip(dir: string): Promise<void> {
  for (const text of TRIP_PROMPTS) expectAllowed(await runHook(box.env, prompt(dir, text)));
  expect(await status(dir)).toMatchObject({ tripped: true });
}

beforeAll(async () => {
  box = sandbox();
  writeFileSync(box.config, `TOKEN_THRESHOLD=${ATTACK_THRESHOLD}\n`);
  daemon = await startDaemon(box);
  const installed = await runCli(box, ['install', 'gemini']);
  expect(installed.code, installed.stderr).toBe(0);
});

afterAll(async () => {
  daemon?.child.kill('SIGCONT');
  await daemon?.stop();
  if (box) removeSandbox(box);
});

describe('BeforeAgent', () => {
  it('records the prompt in the job of its folder and answers nothing while the gate is open', async () => {
    const { dir, job } = project();
    const run = await runHook(box.env, prompt(dir, 'Add a parser for the config file that reports each error with its line.'));
    expect(run).toEqual({ stdout: '', stderr: '', exitCode: 0 });
    const after = await status(dir);
    expect(after).toMatchObject({ job, tripped: false, unsummarizedInteractions: 1 });
    expect(after.unsummarizedTokens).toBeGreaterThan(10);
  });

  it('counts the same tokens for a prompt with the SessionStart context `-p` puts in front of it', async () => {
    const bare = project();
    const withMemory = project();
    const words = 'Now make the parser report duplicate keys as warnings.';
    await runHook(box.env, prompt(bare.dir, words));
    const memory = `recap: the memory of job x: 1 summaries in its chain.\n${TRIP_PROMPTS.join('\n')}`;
    await runHook(box.env, prompt(withMemory.dir, `<hook_context>${memory}</hook_context>\n\n${words}`));
    const [one, two] = [await status(bare.dir), await status(withMemory.dir)];
    expect(two.unsummarizedInteractions).toBe(1);
    expect(two.unsummarizedTokens).toBe(one.unsummarizedTokens);
  });

  it('records nothing for a prompt that is only context', async () => {
    const { dir } = project();
    expect(await runHook(box.env, prompt(dir, '<hook_context>recap: the memory of job x</hook_context>'))).toMatchObject({ stdout: '', exitCode: 0 });
    expect((await status(dir)).unsummarizedInteractions).toBe(0);
  });
});

describe('a job that trips, is gated and summarizes', () => {
  let dir: string;
  let job: string;
  let reason: string;

  beforeAll(async () => {
    ({ dir, job } = project());
  });

  it('the prompt that reaches the threshold is told so, as BeforeAgent context', async () => {
    for (const text of TRIP_PROMPTS.slice(0, -1)) expectAllowed(await runHook(box.env, prompt(dir, text)));
    const context = contextOf(await runHook(box.env, prompt(dir, TRIP_PROMPTS.at(-1)!)), 'BeforeAgent');
    expect(context).toContain(`recap: job ${job} needs a summary before any other tool can run`);
    expect(context).toContain('run_shell_command tool');
  });

  it.each([
    ['run_shell_command', { command: 'echo ran > ran.txt' }],
    ['write_file', { file_path: 'notes.md', content: 'hello\n' }],
    ['replace', { file_path: 'notes.md', old_string: 'a', new_string: 'b', instruction: 'x' }],
    ['read_file', { file_path: 'notes.md' }],
    ['glob', { pattern: '*.md' }],
    ['grep_search', { pattern: 'bye' }],
    ['web_fetch', { prompt: 'read https://example.com' }],
    ['mcp_github_create_issue', { title: 't' }],
    ['write_todos', { todos: [] }],
  ])('then BeforeTool denies %s in Gemini CLI format, naming the way out', async (name, input) => {
    reason = deniedReason(await runHook(box.env, tool(dir, name, input)));
    expect(reason).toContain(`recap: job ${job} needs a summary`);
    expect(reason).toContain(`${join(box.data, 'bin', 'recap')} submit <<'EOF'`);
    expect(reason).toContain('run_shell_command');
    expect(reason).toContain('## Current State');
  });

  it('a SessionStart while tripped hands over the demand for a summary', async () => {
    const context = contextOf(await runHook(box.env, fixture('SessionStart', dir)), 'SessionStart');
    expect(context).toContain(`recap: job ${job} needs a summary`);
    // Gemini CLI shows < and > of a context as &lt; and &gt;: the model is told.
    expect(context).toContain('&lt; and &gt;');
  });

  it('answers the launcher status and the submit the deny names in the hook itself, and the summary clears the gate', async () => {
    const launcher = join(box.data, 'bin', 'recap');
    const shown = deniedReason(await runHook(box.env, tool(dir, 'run_shell_command', { command: `${launcher} status` })));
    expect(shown).toContain('recap ran this command for you in its hook');
    expect(shown).toContain(`job ${job}: gate TRIPPED`);
    const answered = deniedReason(await runHook(box.env, tool(dir, 'run_shell_command', { command: filledIn(submitCommandIn(reason)) })));
    expect(answered).toContain('Summary accepted:');
    expect(answered).toContain('The gate is open: every tool works again.');
    expect(await status(dir)).toMatchObject({ tripped: false, summaries: 1 });
    expectAllowed(await runHook(box.env, tool(dir, 'write_file', { file_path: 'notes.md', content: 'hello\n' })));
  });

  it('a new session is handed the memory', async () => {
    const context = contextOf(await runHook(box.env, fixture('SessionStart', dir, { session_id: 'another-session' })), 'SessionStart');
    expect(context).toContain(`recap: the memory of job ${job}: 1 summaries in its chain.`);
  });
});

describe('with JOB_SCOPE=session', () => {
  it("the way out reaches the session's job, which a command in Gemini CLI's shell (no session id there) could not name", async () => {
    const { dir, job: projectJob } = project();
    mkdirSync(join(dir, '.recap'));
    writeFileSync(join(dir, '.recap', 'config.conf'), 'JOB_SCOPE=session\n');
    expect((await runCli(box, ['config', 'allow'], { cwd: dir })).code).toBe(0);
    const session = 'gemini-scoped-session';
    for (const text of TRIP_PROMPTS) expectAllowed(await runHook(box.env, fixture('BeforeAgent', dir, { session_id: session, prompt: text })));
    const call = (tool_name: string, tool_input: unknown) => fixture('BeforeTool-read_file', dir, { session_id: session, tool_name, tool_input });
    const reason = deniedReason(await runHook(box.env, call('read_file', { file_path: 'a.ts' })));
    expect(reason).toContain(`job session-${session} needs a summary`);
    const command = filledIn(submitCommandIn(reason));
    // Run in a shell as Gemini CLI's (GEMINI_CLI=1, no session id), the command misses the job.
    const inShell = spawnSync('bash', ['-c', command], { cwd: dir, env: { ...box.env, GEMINI_CLI: '1' }, encoding: 'utf8' });
    expect(inShell.status, inShell.stdout).not.toBe(0);
    expect(await status(dir, ['--job', `session-${session}`])).toMatchObject({ tripped: true });
    expect(deniedReason(await runHook(box.env, call('run_shell_command', { command })))).toContain('accepted:');
    expectAllowed(await runHook(box.env, call('read_file', { file_path: 'a.ts' })));
    expect((await status(dir)).job).toBe(projectJob);
  });
});

describe('ask_user answered (AfterTool)', () => {
  it("records the questions with the user's answers as one interaction", async () => {
    const { dir } = project();
    const questions = [{ question: 'Which parser should the config loader use?', header: 'Parser', type: 'choice', options: [{ label: 'Hand-written', description: 'ours' }] }];
    const used = fixture('AfterTool-read_file', dir, {
      tool_name: 'ask_user',
      tool_input: { questions },
      tool_response: { llmContent: JSON.stringify({ answers: { 0: 'Hand-written' } }), returnDisplay: '**User answered:**' },
    });
    expect(await runHook(box.env, used)).toMatchObject({ stdout: '', exitCode: 0 });
    expect((await status(dir)).unsummarizedInteractions).toBe(1);
    // A tripped gate's context lists the interactions to summarize.
    expect((await runCli(box, ['trip'], { cwd: dir })).code).toBe(0);
    const context = await runCli(box, ['context'], { cwd: dir });
    expect(context.stdout).toContain('Q: Which parser should the config loader use?\nA: Hand-written');
  });

  it('records nothing for other tools', async () => {
    const { dir } = project();
    expect(await runHook(box.env, fixture('AfterTool-run_shell_command', dir))).toMatchObject({ stdout: '', exitCode: 0 });
    expect((await status(dir)).unsummarizedInteractions).toBe(0);
  });
});

describe("recap's files and Gemini CLI's setup, with the gate open", () => {
  const extension = () => join(box.dir, '.gemini', 'extensions', 'recap');
  it.each([
    ['write_file onto the data folder', () => tool(project().dir, 'write_file', { file_path: join(box.data, 'bin', 'recap'), content: 'exit 0' }), "touches recap's own files"],
    ['read_file of the event log', () => tool(project().dir, 'read_file', { file_path: join(box.data, 'log', 'CURRENT') }), "touches recap's own files"],
    ['run_shell_command in the data folder', () => tool(project().dir, 'run_shell_command', { command: 'ls', dir_path: join(box.data, 'log') }), "runs inside recap's own files"],
    [
      "write_file onto recap's hooks.json",
      () => tool(project().dir, 'write_file', { file_path: join(extension(), 'hooks', 'hooks.json'), content: '{}' }),
      'would change what wires recap in',
    ],
    [
      'replace in the user settings',
      () => tool(project().dir, 'replace', { file_path: join(box.dir, '.gemini', 'settings.json'), old_string: '{', new_string: '{"hooksConfig":{"enabled":false},' }),
      'would change what wires recap in',
    ],
    [
      'write_file of the project settings',
      () => {
        const { dir } = project();
        return tool(dir, 'write_file', { file_path: join(dir, '.gemini', 'settings.json'), content: '{"hooksConfig":{"disabled":["recap"]}}' });
      },
      'would change what wires recap in',
    ],
    ['gemini extensions disable recap', () => tool(project().dir, 'run_shell_command', { command: 'gemini extensions disable recap' }), "Gemini CLI's extensions"],
    ["rm -rf of recap's extension", () => tool(project().dir, 'run_shell_command', { command: `rm -rf ${extension()}` }), 'could change what wires recap in'],
  ])('denies %s', async (_what, make, why) => {
    expect(deniedReason(await runHook(box.env, make()))).toContain(why);
  });

  it("lets reading recap's hooks.json through", async () => {
    expectAllowed(await runHook(box.env, tool(project().dir, 'read_file', { file_path: join(extension(), 'hooks', 'hooks.json') })));
  });
});

describe('with the daemon stopped (SIGSTOP)', () => {
  let dir: string;
  const env = () => ({ ...box.env, RECAP_HOOK_DEADLINE_MS: '500' });

  beforeAll(async () => {
    ({ dir } = project());
    await trip(dir);
  });
  // Letting the way out through continues the daemon: each case stops it again.
  beforeEach(() => {
    daemon.child.kill('SIGSTOP');
  });
  afterAll(() => {
    daemon.child.kill('SIGCONT');
  });

  it('denies a tool call of the tripped job from the verdict file, in Gemini CLI format', async () => {
    const reason = deniedReason(await runHook(env(), tool(dir, 'write_file', { file_path: 'x.ts', content: 'x' })));
    expect(reason).toContain('the daemon is not answering');
    expect(reason).toContain("submit <<'EOF'");
  });

  it('lets the way out through, with a note for the user', async () => {
    const run = await runHook(env(), tool(dir, 'run_shell_command', { command: `${join(box.data, 'bin', 'recap')} status` }));
    expectAllowed(run);
    expect((JSON.parse(run.stdout) as { systemMessage?: string }).systemMessage).toContain('the recap command was let through');
  });

  it('never blocks a prompt, and keeps it to be counted once the daemon answers', async () => {
    const run = await runHook(env(), prompt(dir, 'Are you there?'));
    expectAllowed(run);
    expect((JSON.parse(run.stdout) as { systemMessage?: string }).systemMessage).toContain('this prompt was kept and will be counted when the daemon answers again');
  });
});
