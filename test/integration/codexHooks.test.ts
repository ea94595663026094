// Codex CLI's hooks through the real hook client, `bin/recap-hook.cjs codex`, against the
// real daemon, with the payloads Codex 0.169.0 sends (test/fixtures/agents/codex): a prompt
// is counted, a tripped gate denies in Codex's format, the way out is run by the hook itself
// (Codex's sandbox keeps the shell off the daemon's socket), recap's files and Codex's
// config stay out of reach, a new session gets the memory, and a stopped or killed daemon
// still leaves a tripped job denied. The daemon a hook starts leaves the hook's pipes alone.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { closeSandbox, RawClient, removeSandbox, ROOT, runCli, sandbox, sandboxWithDaemon, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { FIXTURES } from '../helpers/hookRecorder.js';
import { goodSummary, prose } from '../helpers/text.js';

const HOOK = join(ROOT, 'bin', 'recap-hook.cjs');
/** How long a test waits for the hook before calling it hung. */
const HANG_LIMIT_MS = 6000;

type HookRun = { code: number | null; stdout: string; stderr: string; hung: boolean };

/** Runs `recap-hook codex` with a payload and resolves once it has exited and closed its output (or is called hung). */
function runHook(box: Sandbox, payload: unknown, env: NodeJS.ProcessEnv = {}): Promise<HookRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [HOOK, 'codex'], { cwd: box.project, env: { ...box.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    // 'close': the process is gone and so is every holder of its stdout and stderr.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve({ code: null, stdout, stderr, hung: true });
    }, HANG_LIMIT_MS);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, hung: false });
    });
    child.stdin.end(JSON.stringify(payload));
  });
}

/** A fixture payload of Codex's, moved to this folder and session. */
function payload(name: string, cwd: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  const raw = JSON.parse(readFileSync(join(FIXTURES, 'codex', `${name}.json`), 'utf8')) as Record<string, unknown>;
  return { ...raw, cwd, session_id: `codex-${jobIdFor(cwd)}`, transcript_path: join(cwd, 'rollout.jsonl'), ...fields };
}
const bash = (cwd: string, command: string) => payload('PreToolUse-Bash', cwd, { tool_input: { command } });
const patch = (cwd: string, body: string) => payload('PreToolUse-apply_patch-add', cwd, { tool_input: { command: `*** Begin Patch\n${body}\n*** End Patch\n` } });
const prompt = (cwd: string, text: string) => payload('UserPromptSubmit', cwd, { prompt: text });

type Output = { hookSpecificOutput?: Record<string, string>; systemMessage?: string };
const output = (run: HookRun): Output => {
  expect(run.hung, 'the hook hung').toBe(false);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Output;
};
/** The reason of a deny in Codex's format (the answer must be one, and nothing else). */
function denied(run: HookRun): string {
  const answer = output(run);
  expect(Object.keys(answer)).toEqual(['hookSpecificOutput']);
  expect(answer.hookSpecificOutput).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
  return answer.hookSpecificOutput!.permissionDecisionReason!;
}
function context(run: HookRun, event: string): string {
  const answer = output(run);
  expect(answer.hookSpecificOutput?.hookEventName).toBe(event);
  return answer.hookSpecificOutput!.additionalContext!;
}
const allowed = (run: HookRun) => expect(run).toMatchObject({ hung: false, code: 0, stdout: '' });

/** A git project of its own, and its job. */
function project(box: Sandbox, name: string): { dir: string; job: string } {
  const dir = join(box.dir, name);
  mkdirSync(join(dir, '.git'), { recursive: true });
  return { dir, job: jobIdFor(dir) };
}
const launcher = (box: Sandbox) => join(box.data, 'bin', 'recap');
const status = async (box: Sandbox, job: string) => JSON.parse((await runCli(box, ['status', '--json', '--job', job])).stdout) as Record<string, unknown>;

/** What the hook says before a recap command's output when it ran the command itself. */
const RAN = 'recap ran this command for you in its hook';

describe('recap-hook codex against the daemon', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  beforeAll(async () => ({ box, daemon } = await sandboxWithDaemon()));
  afterAll(() => closeSandbox(box, daemon));

  describe('a job whose prompt trips the gate, and the way out run by the hook', () => {
    let dir: string;
    let job: string;
    beforeAll(() => ({ dir, job } = project(box, 'gated')));

    it('records and counts a prompt, and answers nothing while the gate is open', async () => {
      allowed(await runHook(box, prompt(dir, 'Add a CSV export.')));
      expect(await status(box, job)).toMatchObject({ tripped: false, unsummarizedInteractions: 1 });
      allowed(await runHook(box, bash(dir, 'ls')));
    });

    it('tells the model at once when a prompt trips the gate, as UserPromptSubmit context', async () => {
      const text = context(await runHook(box, prompt(dir, prose(30))), 'UserPromptSubmit');
      expect(text).toContain(`recap: job ${job} needs a summary`);
      expect(text).toContain(`${launcher(box)} context in your exec_command tool`);
      expect(await status(box, job)).toMatchObject({ tripped: true, unsummarizedInteractions: 2 });
    });

    it('denies a shell call and a patch, naming the exact command to run in exec_command', async () => {
      for (const run of [await runHook(box, bash(dir, 'echo hi > a.txt')), await runHook(box, patch(dir, '*** Add File: notes.md\n+x'))]) {
        const reason = denied(run);
        expect(reason).toContain(`recap: job ${job} needs a summary`);
        expect(reason).toContain(`submit it with exactly this exec_command command`);
        expect(reason).toContain(`${launcher(box)} submit <<'EOF'`);
        expect(reason).toContain('## Current State');
      }
    });

    it('runs `status` itself and answers with its output in the deny reason', async () => {
      const reason = denied(await runHook(box, bash(dir, `${launcher(box)} status`)));
      expect(reason.startsWith(RAN)).toBe(true);
      expect(reason).toContain(`job ${job}: gate TRIPPED (threshold)`);
    });

    it('runs `context` itself, with the command to run in exec_command', async () => {
      const reason = denied(await runHook(box, bash(dir, `${launcher(box)} context`)));
      expect(reason).toContain(`recap: job ${job} needs a summary`);
      expect(reason).toContain('exactly this exec_command command');
      expect(reason).toContain('Add a CSV export.');
    });

    it('submits a summary itself: a bad one is rejected with its problems, and the gate stays closed', async () => {
      const reason = denied(await runHook(box, bash(dir, `${launcher(box)} submit <<'EOF'\n## User Requests\ntoo short\nEOF`)));
      expect(reason).toContain('Summary rejected: the gate stays closed');
      expect(reason).toMatch(/\n- /);
      expect(await status(box, job)).toMatchObject({ tripped: true, summaries: 0 });
      // A command chained onto it is no way out: the gate's own deny.
      expect(denied(await runHook(box, bash(dir, `${launcher(box)} status; rm -rf x`)))).toContain('the shell operator ; is not allowed');
    });

    it('submits a good summary itself: accepted, the gate opens, and the next call runs', async () => {
      const answer = output(await runHook(box, bash(dir, `${launcher(box)} submit <<'EOF'\n${goodSummary()}\nEOF`)));
      // The same answer tells the user the summary was accepted.
      expect(answer.systemMessage).toMatch(/^recap: a summary of job .* was accepted \(1 in its chain\); the gate is open$/);
      const reason = answer.hookSpecificOutput!.permissionDecisionReason!;
      expect(reason.startsWith(RAN)).toBe(true);
      expect(reason).toMatch(/Summary accepted: \d+ tokens, covering every interaction up to event #\d+\. The gate is open/);
      expect(await status(box, job)).toMatchObject({ tripped: false, summaries: 1, unsummarizedInteractions: 0 });
      allowed(await runHook(box, bash(dir, 'echo hi > a.txt')));
    });

    it('hands a new session the memory at its start, whatever its source', async () => {
      for (const source of ['startup', 'resume', 'compact']) {
        const text = context(await runHook(box, payload('SessionStart', dir, { source })), 'SessionStart');
        expect(text).toContain(`recap: the memory of job ${job}: 1 summaries in its chain.`);
        expect(text).toContain('The user asked for a parser');
      }
    });
  });

  describe("recap's files and Codex's config, gate open", () => {
    let dir: string;
    beforeAll(() => ({ dir } = project(box, 'protected')));

    it.each([
      ['a patch into the data folder', () => patch(dir, `*** Add File: ${join(box.data, 'x')}\n+x`), "recap's own files"],
      ['a patch onto the user config.toml', () => patch(dir, `*** Update File: ${join(box.dir, '.codex', 'config.toml')}\n@@\n-a\n+b`), 'wires recap in'],
      ['a patch deleting hooks.json by a relative path', () => patch(dir, '*** Delete File: ../.codex/hooks.json'), 'wires recap in'],
      ["a patch onto the project's own .codex/hooks.json", () => patch(dir, '*** Add File: .codex/hooks.json\n+{}'), 'wires recap in'],
      ['a shell appending to config.toml', () => bash(dir, 'printf "[features]\\nhooks = false\\n" >> ~/.codex/config.toml'), 'wires recap in'],
      ['a shell editing hooks.json', () => bash(dir, "sed -i 's/codex/x/' $HOME/.codex/hooks.json"), 'wires recap in'],
      ['a shell reading the event log', () => bash(dir, `cat ${join(box.data, 'log', 'CURRENT')}`), "recap's own files"],
      ['recap uninstall codex', () => bash(dir, 'recap uninstall codex'), "recap uninstall changes recap's setup"],
    ])('denies %s', async (_what, call, words) => {
      expect(denied(await runHook(box, call()))).toContain(words);
    });

    it('lets the agent read Codex config and patch its own files', async () => {
      allowed(await runHook(box, bash(dir, 'cat ~/.codex/config.toml')));
      allowed(await runHook(box, patch(dir, '*** Add File: src/new.ts\n+x')));
    });
  });

  it('ignores the events it does not act on, and judges an unreadable tool call as an unknown tool of its session', async () => {
    const { dir } = project(box, 'odd');
    for (const name of ['Stop', 'PostToolUse-Bash']) allowed(await runHook(box, payload(name, dir)));
    const { cwd: _none, ...noCwd } = bash(dir, 'ls');
    // Of a session recap has not met, it names no job: denied.
    expect(denied(await runHook(box, noCwd))).toContain('unexpected shape');
    // Of a known session, its job's open gate lets it through.
    allowed(await runHook(box, prompt(dir, 'Start.')));
    allowed(await runHook(box, noCwd));
  });
});

describe('recap-hook codex when the daemon is stopped or killed, for a tripped job', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let dir: string;
  let job: string;
  beforeAll(async () => {
    box = sandbox();
    daemon = await startDaemon(box);
    ({ dir, job } = project(box, 'down'));
    expect((await runHook(box, prompt(dir, prose(30)))).code).toBe(0);
    expect(await status(box, job)).toMatchObject({ tripped: true });
  });
  afterAll(async () => {
    if (daemon.child.exitCode === null && daemon.child.signalCode === null) daemon.child.kill('SIGCONT');
    await daemon.stop('SIGKILL');
    removeSandbox(box);
  });

  // The hook's deadline, shortened: a stopped daemon takes every call to the deadline.
  const SHORT = { RECAP_HOOK_DEADLINE_MS: '1000' };

  it('stopped (SIGSTOP): the call is denied in Codex format, with the submit command; the way out passes with a note', async () => {
    daemon.child.kill('SIGSTOP');
    try {
      const reason = denied(await runHook(box, bash(dir, 'ls'), SHORT));
      expect(reason).toContain(`it last knew job ${job} as tripped`);
      expect(reason).toContain(`this exec_command command`);
      expect(reason).toContain(`${launcher(box)} submit <<'EOF'`);
      const note = output(await runHook(box, bash(dir, `${launcher(box)} status`), SHORT));
      expect(Object.keys(note)).toEqual(['systemMessage']);
      expect(note.systemMessage).toContain('the recap command was let through');
    } finally {
      daemon.child.kill('SIGCONT');
    }
  });

  it('killed, and unable to start again: the call is denied from the verdict file', async () => {
    await daemon.stop('SIGKILL');
    // A data folder that is a file: the hook's attempt to start a daemon fails at once.
    const blocked = join(box.dir, 'not-a-folder');
    writeFileSync(blocked, 'x');
    const reason = denied(await runHook(box, patch(dir, '*** Add File: notes.md\n+x'), { RECAP_DATA_DIR: blocked }));
    expect(reason).toContain(`it last knew job ${job} as tripped`);
  });
});

describe('recap-hook codex with no daemon running', () => {
  let box: Sandbox | undefined;
  let pid: number | undefined;
  afterEach(async () => {
    if (pid !== undefined) {
      const gone = new Promise<void>((resolve) => spawn('tail', ['--pid', String(pid), '-f', '/dev/null']).once('exit', () => resolve()));
      process.kill(pid, 'SIGTERM');
      await gone;
    }
    if (box) removeSandbox(box);
  });

  it('starts the daemon fully apart from itself: its output closes at once while the daemon runs on (Codex waits for that)', async () => {
    box = sandbox();
    expect(existsSync(box.socket)).toBe(false);
    const run = await runHook(box, payload('SessionStart', box.project));
    const ready = readFileSync(join(box.data, 'recapd.log'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { pid: number; msg: string })
      .find((l) => l.msg === 'recap daemon ready');
    pid = ready?.pid;
    // Closed, not hung: had the daemon kept the hook's stdout or stderr, 'close' would wait for it.
    expect(run).toMatchObject({ hung: false, code: 0, stdout: '' });
    expect(pid).toBeDefined();
    const client = await RawClient.connect(box.socket);
    expect((await client.request({ id: 1, op: 'ping' })).result).toMatchObject({ version: expect.any(String) });
    client.close();
    // The daemon's stdio is /dev/null and its log, never the hook's pipes, and it has a session of its own (setsid).
    expect([0, 1, 2].map((fd) => readlinkSync(`/proc/${pid}/fd/${fd}`))).toEqual(['/dev/null', join(box.data, 'recapd.log'), join(box.data, 'recapd.log')]);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    expect(Number(stat[3])).toBe(pid);
  });
});
