// The real hook client, `bin/recap-hook.cjs claude`, as Claude Code runs it: a payload on
// stdin (ended, or left open), against a real daemon, against no daemon (it starts one),
// and against a daemon that can be neither reached nor started (ON_DAEMON_DOWN).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RawClient, removeSandbox, ROOT, runCli, sandbox, type DaemonProcess, type Sandbox, closeSandbox, sandboxWithDaemon } from '../helpers/daemon.js';
import { prose } from '../helpers/text.js';

const HOOK = join(ROOT, 'bin', 'recap-hook.cjs');
/** The hook's own deadline for stdin (STDIN_DEADLINE_MS in src/client/hook.ts). */
const STDIN_DEADLINE_MS = 2000;
/** How long a test waits for the hook to exit before calling it hung and killing it. */
const HANG_LIMIT_MS = 6000;

type HookRun = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; ms: number; hung: boolean };
type HookOptions = { input?: string; endStdin?: boolean; args?: string[]; env?: NodeJS.ProcessEnv; cwd?: string };

/**
 * Runs the hook and resolves once it exits, or after HANG_LIMIT_MS (then it is killed and
 * reported as hung). With `endStdin: false` the input is written and stdin stays open, as
 * some agents do.
 */
async function runHook(box: Sandbox, options: HookOptions = {}): Promise<HookRun> {
  const started = Date.now();
  const child = spawn(process.execPath, [HOOK, ...(options.args ?? ['claude'])], {
    cwd: options.cwd ?? box.project,
    env: { ...box.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin.on('error', () => {}); // the hook may exit before reading everything
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, ms: Date.now() - started })),
  );
  if (options.input !== undefined && options.input !== '') child.stdin.write(options.input);
  if (options.endStdin ?? true) child.stdin.end();

  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), HANG_LIMIT_MS)));
  const outcome = await Promise.race([exited, limit]);
  clearTimeout(timer);
  const hung = outcome === 'hung';
  if (hung) child.kill('SIGKILL');
  const { code, signal, ms } = await exited;
  child.stdin.destroy();
  await closed;
  return { code, signal, stdout, stderr, ms, hung };
}

const noStack = (run: HookRun) => {
  expect(run.stdout).not.toContain('    at ');
  expect(run.stderr).not.toContain('    at ');
};

/** Each project its own session: a session keeps the job of the folder it was first seen in. */
function common(cwd: string) {
  return { session_id: `session-${basename(cwd)}`, transcript_path: join(cwd, 'transcript.jsonl'), cwd, permission_mode: 'default' };
}
const preToolUse = (cwd: string, tool = 'Read', input: unknown = { file_path: join(cwd, 'src', 'a.ts') }) =>
  JSON.stringify({ ...common(cwd), hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input, tool_use_id: 'toolu_01' });
const promptSubmit = (cwd: string, prompt: string) => JSON.stringify({ ...common(cwd), hook_event_name: 'UserPromptSubmit', prompt });

type Deny = { hookSpecificOutput: { hookEventName: string; permissionDecision: string; permissionDecisionReason: string } };
function expectDeny(run: HookRun): string {
  expect(run.hung, 'the hook hung').toBe(false);
  expect(run.code).toBe(0);
  const answer = JSON.parse(run.stdout) as Deny;
  expect(answer.hookSpecificOutput).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
  return answer.hookSpecificOutput.permissionDecisionReason;
}
/** The reason of a PreToolUse deny: what recap-hook answers to input it cannot judge. */
function expectDenyReason(run: HookRun): string {
  expect(run.hung, 'the hook hung').toBe(false);
  expect(run.code).toBe(0);
  const answer = JSON.parse(run.stdout) as { hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } };
  expect(answer.hookSpecificOutput?.permissionDecision).toBe('deny');
  return answer.hookSpecificOutput!.permissionDecisionReason!;
}

function expectSystemMessage(run: HookRun): string {
  expect(run.hung, 'the hook hung').toBe(false);
  expect(run.code).toBe(0);
  const answer = JSON.parse(run.stdout) as { systemMessage?: unknown; hookSpecificOutput?: unknown };
  expect(answer.hookSpecificOutput).toBeUndefined();
  expect(typeof answer.systemMessage).toBe('string');
  return answer.systemMessage as string;
}

/** A project folder of its own (a git top-level), so each test has its own job and gate. */
function project(box: Sandbox, name: string): string {
  const dir = join(box.dir, name);
  mkdirSync(join(dir, '.git'), { recursive: true });
  return dir;
}

/** Resolves when the process with this pid has exited (it is not our child). */
function processGone(pid: number): Promise<void> {
  return new Promise((resolve) => spawn('tail', ['--pid', String(pid), '-f', '/dev/null']).once('exit', () => resolve()));
}

describe('recap-hook claude against a running daemon', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;

  beforeAll(async () => ({ box, daemon } = await sandboxWithDaemon()));
  afterAll(() => closeSandbox(box, daemon));

  it('allows a tool call while the gate is open: exit 0, nothing on stdout', async () => {
    const cwd = project(box, 'open');
    const run = await runHook(box, { input: preToolUse(cwd), cwd });
    expect(run).toMatchObject({ hung: false, code: 0, stdout: '', stderr: '' });
  });

  it('answers without loading its fallback, nor the built-ins only the fallback needs', async () => {
    const cwd = project(box, 'lean');
    // Preloaded before the hook: as the hook exits, it reports the files and built-ins loaded.
    const report = join(box.dir, 'report-loads.cjs');
    writeFileSync(report, "process.on('exit', () => process.stderr.write(JSON.stringify({ files: Object.keys(require.cache), builtIns: process.moduleLoadList })));\n");
    const run = await runHook(box, { input: preToolUse(cwd), cwd, env: { NODE_OPTIONS: `--require ${report}` } });
    expect(run).toMatchObject({ hung: false, code: 0, stdout: '' });
    const loaded = JSON.parse(run.stderr) as { files: string[]; builtIns: string[] };
    expect(loaded.files.filter((file) => file !== report)).toEqual([HOOK]);
    for (const unused of ['child_process', 'crypto']) expect(loaded.builtIns).not.toContain(`NativeModule ${unused}`);
  });

  it('once a prompt through the hook trips the gate, denies Read with a reason naming recap submit', async () => {
    const cwd = project(box, 'tripped');
    const recorded = await runHook(box, { input: promptSubmit(cwd, prose(30)), cwd });
    expect(recorded.code).toBe(0);
    const context = JSON.parse(recorded.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    expect(context.hookSpecificOutput.hookEventName).toBe('UserPromptSubmit');
    expect(context.hookSpecificOutput.additionalContext).toContain('needs a summary');

    const status = await runCli(box, ['status', '--json'], { cwd });
    expect(JSON.parse(status.stdout)).toMatchObject({ tripped: true, reason: 'threshold' });

    const run = await runHook(box, { input: preToolUse(cwd), cwd });
    const reason = expectDeny(run);
    expect(reason).toContain('recap submit');
    expect(reason).toContain('## Current State');
    noStack(run);
  });

  it('denies after a prompt recorded through the CLI too', async () => {
    const cwd = project(box, 'tripped-by-cli');
    expect((await runCli(box, ['record', '--kind', 'prompt'], { cwd, input: prose(30) })).code).toBe(0);
    const reason = expectDeny(await runHook(box, { input: preToolUse(cwd, 'Bash', { command: 'ls', description: 'list' }), cwd }));
    expect(reason).toContain('recap submit');
  });

  it('answers promptly when stdin is left open after one complete JSON object, and exits', async () => {
    const cwd = project(box, 'stdin-open');
    await runCli(box, ['record', '--kind', 'prompt'], { cwd, input: prose(30) });
    const run = await runHook(box, { input: `${preToolUse(cwd)}\n`, endStdin: false, cwd });
    expect(run.hung, 'the hook did not exit while its stdin was open').toBe(false);
    expect(expectDeny(run)).toContain('recap submit');
    // It took the object as soon as it was complete, not at its stdin deadline.
    expect(run.ms).toBeLessThan(STDIN_DEADLINE_MS);
  });

  it('exits within its stdin deadline with a deny when stdin stays open and nothing comes (silence would allow)', async () => {
    const run = await runHook(box, { endStdin: false });
    expect(run.hung, `the hook was still running after ${HANG_LIMIT_MS} ms (stdout so far: ${run.stdout})`).toBe(false);
    expect(expectDenyReason(run)).toContain('did not arrive whole');
    expect(run.ms).toBeGreaterThanOrEqual(STDIN_DEADLINE_MS - 100);
    noStack(run);
  });

  it('answers the first of two objects at once when stdin stays open after them', async () => {
    const cwd = project(box, 'stdin-open-junk');
    const run = await runHook(box, { input: `${preToolUse(cwd)}\n${preToolUse(cwd)}\n`, endStdin: false, cwd });
    expect(run.hung, `the hook was still running after ${HANG_LIMIT_MS} ms (stdout so far: ${run.stdout})`).toBe(false);
    expect(run.code).toBe(0);
    // The gate is open: the first PreToolUse is allowed, which is no output at all.
    expect(run.stdout).toBe('');
    noStack(run);
  });

  it('denies a JSON array: it is not one JSON object', async () => {
    for (const input of ['[]', '[1,2]']) expect(expectDenyReason(await runHook(box, { input })), input).toContain('not a JSON object');
  });

  it('denies invalid JSON with exit 0 and a reason, never a stack trace', async () => {
    for (const input of ['{"hook_event_name": "PreToolUse", ', 'not json at all', '{oops}', '', '42', '"a string"']) {
      const run = await runHook(box, { input });
      expect(expectDenyReason(run), JSON.stringify(input)).toMatch(/not (one complete JSON object|a JSON object)|got no input/);
      noStack(run);
    }
  });

  it('answers an unreadable prompt with a systemMessage: a prompt is never blocked', async () => {
    const run = await runHook(box, { input: '{"hook_event_name": "UserPromptSubmit", "prompt": "cut sh' });
    expect(expectSystemMessage(run)).toContain('UserPromptSubmit was not checked');
    noStack(run);
  });

  it('refuses an unknown agent with exit 1 and a usage line on stderr', async () => {
    for (const args of [['foo'], []]) {
      const run = await runHook(box, { args, input: preToolUse(box.project) });
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/usage: recap-hook <agent>, the agent one of: claude/);
      noStack(run);
    }
  });
});

describe('recap-hook claude with no daemon running', () => {
  const boxes: Sandbox[] = [];
  const pids: number[] = [];
  afterEach(async () => {
    for (const pid of pids.splice(0)) {
      const gone = processGone(pid);
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
      await gone;
    }
    for (const box of boxes.splice(0)) removeSandbox(box);
  });

  it('starts the daemon and answers from it', async () => {
    const box = sandbox();
    boxes.push(box);
    expect(existsSync(box.socket)).toBe(false);
    const run = await runHook(box, { input: preToolUse(box.project) });
    const logFile = join(box.data, 'recapd.log');
    if (existsSync(logFile)) {
      const ready = readFileSync(logFile, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { pid: number; msg: string })
        .find((l) => l.msg === 'recap daemon ready');
      if (ready) pids.push(ready.pid);
    }
    expect(run).toMatchObject({ hung: false, code: 0, stdout: '' });
    expect(existsSync(box.socket)).toBe(true);
    expect(pids).toHaveLength(1);

    const client = await RawClient.connect(box.socket);
    expect((await client.request({ id: 1, op: 'ping' })).result).toMatchObject({ version: expect.any(String) });
    client.close();
    // A daemon, not the fail-open path, answers: recap's own files are off limits.
    const reason = expectDeny(await runHook(box, { input: preToolUse(box.project, 'Read', { file_path: join(box.data, 'http-token') }) }));
    expect(reason).not.toContain('not reachable');
  });
});

describe('recap-hook claude when the daemon can be neither reached nor started', () => {
  let box: Sandbox;
  beforeAll(() => {
    box = sandbox();
    writeFileSync(join(box.dir, 'a-file'), 'not a folder\n');
  });
  afterAll(() => removeSandbox(box));

  // Three ways to be unreachable: no folder for the socket, no data folder for the daemon,
  // and a daemon that starts and exits at once (its event log is a file).
  const setups: { name: string; env: () => NodeJS.ProcessEnv }[] = [
    { name: 'RECAP_SOCKET inside a file', env: () => ({ RECAP_SOCKET: join(box.dir, 'a-file', 'recapd.sock') }) },
    { name: 'RECAP_DATA_DIR is a file', env: () => ({ RECAP_DATA_DIR: join(box.dir, 'a-file'), RECAP_SOCKET: join(box.dir, 'run2', 'recapd.sock') }) },
    {
      name: 'the event log is a file, so the daemon exits at start',
      env: () => {
        const data = join(box.dir, 'data-with-bad-log');
        mkdirSync(data, { recursive: true });
        writeFileSync(join(data, 'log'), 'not a LevelDB\n');
        return { RECAP_DATA_DIR: data, RECAP_SOCKET: join(box.dir, 'run3', 'recapd.sock') };
      },
    },
  ];

  function configs(name: string, user: string | undefined, projectFile: string | undefined): { env: NodeJS.ProcessEnv; cwd: string } {
    const cwd = project(box, `project-${name}`);
    const userFile = join(box.dir, `user-${name}.conf`);
    if (user !== undefined) writeFileSync(userFile, user);
    if (projectFile !== undefined) {
      mkdirSync(join(cwd, '.recap'), { recursive: true });
      writeFileSync(join(cwd, '.recap', 'config.conf'), projectFile);
    }
    return { env: { RECAP_CONFIG: userFile }, cwd };
  }

  for (const [index, setup] of setups.entries()) {
    describe(setup.name, () => {
      it('with ON_DAEMON_DOWN=open: exit 0 and a systemMessage saying how to start the daemon', async () => {
        const { env, cwd } = configs(`open-${index}`, "# the user's choice\nON_DAEMON_DOWN=open\n", undefined);
        const run = await runHook(box, { input: preToolUse(cwd), env: { ...env, ...setup.env() }, cwd });
        const message = expectSystemMessage(run);
        expect(message).toContain('not reachable');
        expect(message).toContain('recap daemon');
        noStack(run);
      });

      it('with no ON_DAEMON_DOWN anywhere: open is the default', async () => {
        const { env, cwd } = configs(`default-${index}`, undefined, undefined);
        const run = await runHook(box, { input: preToolUse(cwd), env: { ...env, ...setup.env() }, cwd });
        expect(expectSystemMessage(run)).toContain('recap daemon');
        noStack(run);
      });

      it('with ON_DAEMON_DOWN=closed: a PreToolUse is denied with a reason saying how to start the daemon', async () => {
        const { env, cwd } = configs(`closed-${index}`, 'ON_DAEMON_DOWN="closed"\n', undefined);
        const run = await runHook(box, { input: preToolUse(cwd), env: { ...env, ...setup.env() }, cwd });
        const reason = expectDeny(run);
        expect(reason).toContain('not reachable');
        expect(reason).toContain('recap daemon');
        expect(reason).toContain('systemctl --user start recap.socket');
        noStack(run);
        // Only tool calls are denied; a prompt is let through with a warning.
        const prompt = await runHook(box, { input: promptSubmit(cwd, 'hello'), env: { ...env, ...setup.env() }, cwd });
        expect(expectSystemMessage(prompt)).toContain('recap daemon');
      });
    });
  }

  it("lets the project's ON_DAEMON_DOWN=closed override the user's open, but not the project's open (the agent can write it) the user's closed", async () => {
    const down = setups[0]!.env();
    const closed = configs('project-closed', 'ON_DAEMON_DOWN=open\n', 'ON_DAEMON_DOWN=closed\n');
    expect(expectDeny(await runHook(box, { input: preToolUse(closed.cwd), env: { ...closed.env, ...down }, cwd: closed.cwd }))).toContain('recap daemon');
    // From a subfolder of the project, too: the project is its git top-level.
    const sub = join(closed.cwd, 'src', 'deep');
    mkdirSync(sub, { recursive: true });
    expectDeny(await runHook(box, { input: preToolUse(sub), env: { ...closed.env, ...down }, cwd: sub }));

    const open = configs('project-open', 'ON_DAEMON_DOWN=closed\n', 'ON_DAEMON_DOWN=open\n');
    expect(expectDeny(await runHook(box, { input: preToolUse(open.cwd), env: { ...open.env, ...down }, cwd: open.cwd }))).toContain('recap daemon');
    // With no word from the user, open is the default, and the project's open changes nothing.
    const unsaid = configs('project-open-alone', undefined, 'ON_DAEMON_DOWN=open\n');
    expect(expectSystemMessage(await runHook(box, { input: preToolUse(unsaid.cwd), env: { ...unsaid.env, ...down }, cwd: unsaid.cwd }))).toContain('recap daemon');
  });
});

describe("the hook's module graph", () => {
  const FALLBACK = join(ROOT, 'dist', 'client', 'hookFallback.cjs');
  const loads = (file: string) => {
    const source = readFileSync(file, 'utf8');
    const requires = [...source.matchAll(/\brequire\s*\(([^)]*)\)/g)].map((m) => m[1]!.trim());
    const imports = [...source.matchAll(/\bimport\s*\(([^)]*)\)/g)].map((m) => m[1]!.trim());
    return [...requires, ...imports];
  };
  const builtIn = /^(['"`])node:[a-z_/]+\1$/;

  it('bin/recap-hook.cjs requires nothing but node: built-ins and its fallback', () => {
    const specifiers = loads(HOOK);
    expect(specifiers.length).toBeGreaterThan(0);
    for (const specifier of specifiers) expect(specifier, 'a required module').toMatch(/^(['"`])(node:[a-z_/]+|\.\.\/dist\/client\/hookFallback\.cjs)\1$/);
  });

  it('dist/client/hookFallback.cjs requires nothing but node: built-ins', () => {
    const specifiers = loads(FALLBACK);
    expect(specifiers.length).toBeGreaterThan(0);
    for (const specifier of specifiers) expect(specifier, 'a required module').toMatch(builtIn);
  });
});
