// Qwen Code's hooks through the real daemon and the real `recap-hook qwen` (bin/recap-hook.cjs),
// with the payloads the real binary sends (test/fixtures/agents/qwen): the user's prompt is
// counted and the requests after a tool round are not, a tripped gate denies every tool in
// Qwen Code's format, the way out works from run_shell_command (the session found through
// QWEN_CODE_SESSION_ID), recap's files and Qwen Code's settings stay out of the agent's
// reach, answers stay under the 1 MiB Qwen Code drops, and with the daemon stopped the hook
// itself denies a tripped job's tools.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ESCAPED_NOTE } from '../../src/agents/qwen/facts.js';
import { runCli, sandbox, type Sandbox } from '../helpers/daemon.js';
import { endAttack, filledIn, HOOK, openGate, runShell, submitCommandIn, TRIP_PROMPTS, type Attack, type HookRun } from '../helpers/gateAttack.js';
import { FIXTURE_ROOT, FIXTURES } from '../helpers/hookRecorder.js';

const MIB = 1024 * 1024;
const FIXTURE_SESSION = '4a0b4ae9-d80c-4043-ba1f-921033014e8d';

/** Runs `recap-hook qwen` as Qwen Code does: the payload on stdin, in the project folder. */
function runQwenHook(env: NodeJS.ProcessEnv, payload: unknown, cwd?: string): Promise<HookRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HOOK, 'qwen'], { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
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

type Output = { hookSpecificOutput?: Record<string, string>; systemMessage?: string };
const output = (run: HookRun): Output => {
  expect(run.exitCode, run.stderr).toBe(0);
  expect(Buffer.byteLength(run.stdout), 'Qwen Code ignores an answer over 1 MiB').toBeLessThan(MIB);
  return JSON.parse(run.stdout) as Output;
};

/** The reason of a deny in Qwen Code's format; fails on anything else (silence lets the call run). */
function deniedReason(run: HookRun): string {
  const answer = output(run);
  expect(answer.hookSpecificOutput).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
  return answer.hookSpecificOutput!.permissionDecisionReason!;
}

/** Nothing said: Qwen Code runs the call (never `allow`, which would skip its approval prompt). */
function expectNothing(run: HookRun): void {
  expect(run.exitCode, run.stderr).toBe(0);
  expect(run.stdout).toBe('');
}

function context(run: HookRun, event: string): string {
  const answer = output(run);
  expect(answer.hookSpecificOutput?.hookEventName).toBe(event);
  return answer.hookSpecificOutput!.additionalContext!;
}

describe('recap-hook qwen with the real daemon', () => {
  let attack: Attack;
  let box: Sandbox;
  let launcher: string;
  /** A real payload of Qwen Code's, moved into the sandbox and the attack's session. */
  let fixture: (name: string, fields?: Record<string, unknown>) => Record<string, unknown>;
  const hook = (payload: unknown, env: NodeJS.ProcessEnv = box.env) => runQwenHook(env, payload, box.project);
  const tool = (name: string, input: unknown) => fixture('PreToolUse-read_file', { tool_name: name, tool_input: input });
  const prompt = (text: string) => fixture('UserPromptSubmit', { prompt: text, submitted_prompt: text });
  const status = async () => JSON.parse((await runCli(box, ['status', '--json'])).stdout) as { tripped: boolean; unsummarizedInteractions: number; summaries: number };

  beforeAll(async () => {
    attack = await openGate(sandbox());
    box = attack.box;
    launcher = join(box.data, 'bin', 'recap');
    // The agent's shell as Qwen Code's run_shell_command makes it (test/e2e/qwen.test.ts).
    attack.shellEnv = { ...box.env, QWEN_CODE: '1', QWEN_CODE_SESSION_ID: attack.session };
    fixture = (name, fields = {}) => {
      const text = readFileSync(join(FIXTURES, 'qwen', `${name}.json`), 'utf8')
        .replaceAll(`${FIXTURE_ROOT}/project`, box.project)
        .replaceAll(`${FIXTURE_ROOT}/home`, box.dir)
        .replaceAll(FIXTURE_SESSION, attack.session);
      return { ...(JSON.parse(text) as Record<string, unknown>), ...fields };
    };
  });
  afterAll(() => endAttack(attack));

  describe('on an open gate', () => {
    it('SessionStart on a fresh job adds nothing', async () => {
      expectNothing(await hook(fixture('SessionStart')));
    });

    it("the user's prompt is recorded and counted; the request after a tool round is not, and is not warned about", async () => {
      expectNothing(await hook(fixture('UserPromptSubmit')));
      expect(await status()).toMatchObject({ tripped: false, unsummarizedInteractions: 1 });
      const logged = attack.daemon.lines.length;
      expectNothing(await hook(fixture('UserPromptSubmit-followup')));
      expectNothing(await hook(fixture('UserPromptSubmit-followup')));
      expect(await status()).toMatchObject({ unsummarizedInteractions: 1 });
      expect(attack.daemon.linesAfter(logged).filter((l) => l.level >= 40)).toEqual([]);
    });

    it.each(['run_shell_command', 'write_file', 'edit', 'read_file', 'glob', 'grep_search'])('PreToolUse and PostToolUse on %s pass without a word', async (name) => {
      expectNothing(await hook(fixture(`PreToolUse-${name}`)));
      expectNothing(await hook(fixture(`PostToolUse-${name}`)));
    });

    // Each would switch recap off for the next session, or touch its state.
    const protectedCalls: [string, () => Record<string, unknown>, string][] = [
      [
        'write_file onto ~/.qwen/settings.json',
        () => tool('write_file', { file_path: join(box.dir, '.qwen', 'settings.json'), content: '{}' }),
        'would change what wires recap in',
      ],
      [
        'edit of the project .qwen/settings.json',
        () => tool('edit', { file_path: join(box.project, '.qwen', 'settings.json'), old_string: '{', new_string: '{"disableAllHooks":true,' }),
        'would change what wires recap in',
      ],
      [
        'write_file of a .qwen/settings.json in a subfolder',
        () => tool('write_file', { file_path: join(box.project, 'sub', '.qwen', 'settings.json'), content: '{"disableAllHooks":true}' }),
        "would change Qwen Code's settings",
      ],
      [
        'write_file of ~/.env, which may set QWEN_HOME',
        () => tool('write_file', { file_path: join(box.dir, '.env'), content: 'QWEN_HOME=/tmp/elsewhere\n' }),
        'would change what wires recap in',
      ],
      [
        'write_file of ~/.qwen/trustedFolders.json',
        () => tool('write_file', { file_path: join(box.dir, '.qwen', 'trustedFolders.json'), content: '{}' }),
        'would change what wires recap in',
      ],
      ['write_file into the data folder', () => tool('write_file', { file_path: join(box.data, 'log', 'CURRENT'), content: 'x' }), "touches recap's own files"],
      ['read_file of the data folder', () => tool('read_file', { file_path: join(box.data, 'log', 'CURRENT') }), "touches recap's own files"],
      ['notebook_edit in the data folder', () => tool('notebook_edit', { notebook_path: join(box.data, 'n.ipynb'), new_source: 'x' }), "touches recap's own files"],
      ['glob under the data folder', () => tool('glob', { pattern: '**/*', path: box.data }), "touches recap's own files"],
      ['grep_search whose glob reaches the data folder', () => tool('grep_search', { pattern: 'x', path: box.dir, glob: 'data/**' }), "touches recap's own files"],
      [
        'run_shell_command that writes the project settings',
        () => tool('run_shell_command', { command: `mkdir -p .qwen && echo '{"disableAllHooks":true}' > .qwen/settings.json` }),
        'could change what wires recap in',
      ],
      [
        'run_shell_command that writes settings.json in a .qwen folder',
        () => tool('run_shell_command', { command: `cd sub/.qwen && echo '{"disableAllHooks":true}' > settings.json` }),
        "could change Qwen Code's settings",
      ],
      ['run_shell_command run in the data folder', () => tool('run_shell_command', { command: 'ls', directory: box.data }), "runs inside recap's own files"],
      ['monitor on a command that removes the data folder', () => tool('monitor', { command: `rm -rf ${box.data}` }), "touches recap's own files"],
      [
        'write_file through the deferred-tool bridge',
        () => tool('tool_call', { name: 'write_file', arguments: { file_path: join(box.dir, '.qwen', 'settings.json'), content: '{}' } }),
        'would change what wires recap in',
      ],
      ['an MCP tool naming the settings', () => tool('mcp__fs__write', { target: join(box.dir, '.qwen', 'settings.json'), text: '{}' }), 'would change what wires recap in'],
    ];
    it.each(protectedCalls)('denies %s', async (_what, make, why) => {
      const reason = deniedReason(await hook(make()));
      expect(reason).toContain(why);
      expect(reason).toContain(`${launcher} status`);
    });

    it('reading the settings that wire recap in is fine', async () => {
      expectNothing(await hook(tool('read_file', { file_path: join(box.dir, '.qwen', 'settings.json') })));
      expectNothing(await hook(tool('run_shell_command', { command: 'cat ~/.qwen/settings.json' })));
    });

    it('a deny whose reason would pass 1 MiB is cut, not dropped (a dropped deny lets the call run)', async () => {
      // A path that normalizes onto the settings, long enough to make the refusal huge.
      const path = `${box.dir}/${'./'.repeat(700_000)}.qwen/settings.json`;
      const reason = deniedReason(await hook(tool('write_file', { file_path: path, content: '{}' })));
      expect(reason.startsWith(`recap: this call was refused: write_file on ${box.dir}/././`)).toBe(true);
      expect(reason).toMatch(/\[recap cut the last \d+ characters to fit Qwen Code's hook output limit\]$/);
    });
  });

  describe('on a tripped gate', () => {
    beforeAll(async () => {
      for (const text of TRIP_PROMPTS.slice(0, -1)) expectNothing(await hook(prompt(text)));
    });

    it('the prompt that reaches the threshold is told so, as UserPromptSubmit context', async () => {
      const told = context(await hook(prompt(TRIP_PROMPTS.at(-1)!)), 'UserPromptSubmit');
      expect(told).toContain(`recap: job ${attack.job} needs a summary before any other tool can run`);
      expect(told).toContain(`Run ${launcher} context in your run_shell_command tool`);
      expect(await status()).toMatchObject({ tripped: true });
    });

    it.each(['run_shell_command', 'write_file', 'edit', 'read_file', 'glob', 'grep_search'])("denies %s in Qwen Code's format, naming the way out", async (name) => {
      const reason = deniedReason(await hook(fixture(`PreToolUse-${name}`)));
      expect(reason).toContain(`recap: job ${attack.job} needs a summary`);
      expect(reason).toContain('submit it with exactly this run_shell_command command');
      expect(reason).toContain(`${launcher} submit <<'EOF'`);
      expect(reason.length).toBeLessThan(10_000);
    });

    it('SessionStart hands over the demand for a summary, with the note on < and >', async () => {
      const told = context(await hook(fixture('SessionStart')), 'SessionStart');
      expect(told.startsWith(`${ESCAPED_NOTE}\n\nrecap: job ${attack.job} needs a summary`)).toBe(true);
      expect(told).toContain(`${launcher} submit <<'EOF'`);
    });

    it.each(['status', 'context', 'chain --json'])('lets run_shell_command run "<launcher> %s"', async (subcommand) => {
      expectNothing(await hook(tool('run_shell_command', { command: `${launcher} ${subcommand}`, description: 'recap' })));
    });

    it("with the daemon stopped, recap-hook denies from its last verdict in Qwen Code's format; the way out and prompts pass with a note", async () => {
      const env = { ...box.env, RECAP_HOOK_DEADLINE_MS: '500' };
      attack.daemon.child.kill('SIGSTOP');
      try {
        const reason = deniedReason(await hook(fixture('PreToolUse-write_file'), env));
        expect(reason).toContain('recap: the daemon is not answering');
        expect(reason).toContain(`it last knew job ${attack.job} as tripped (threshold)`);
        expect(reason).toContain(`this run_shell_command command, filling in every section:\n${launcher} submit <<'EOF'`);
        const wayOut = output(await hook(tool('run_shell_command', { command: `${launcher} status` }), env));
        expect(wayOut).toEqual({ systemMessage: expect.stringContaining('the recap command was let through') });
        // Letting the way out through continued the daemon: the prompt is answered by it, not by the fallback.
        const told = output(await hook(fixture('UserPromptSubmit'), env));
        expect(JSON.stringify(told)).not.toContain('not reachable');
      } finally {
        attack.daemon.child.kill('SIGCONT');
      }
    });

    it('the named submit, run from run_shell_command in another folder, finds the job by QWEN_CODE_SESSION_ID and opens the gate', async () => {
      const reason = deniedReason(await hook(fixture('PreToolUse-read_file')));
      const command = filledIn(submitCommandIn(reason));
      expectNothing(await hook(tool('run_shell_command', { command, description: 'submit the summary' })));
      const elsewhere = join(box.dir, 'elsewhere');
      mkdirSync(elsewhere, { recursive: true });
      const ran = await runShell(attack, command, elsewhere);
      expect(ran.exitCode, `${ran.stdout}\n${ran.stderr}`).toBe(0);
      expect(ran.stdout).toMatch(/^accepted: /);
      expect(await status()).toMatchObject({ tripped: false, summaries: 1 });
      // The next call runs, and its answer tells the user the summary was accepted.
      expect(output(await hook(fixture('PreToolUse-write_file')))).toEqual({ systemMessage: expect.stringMatching(/was accepted \(1 in its chain\); the gate is open$/) });
      expectNothing(await hook(fixture('PreToolUse-write_file')));
    });

    it('a new session is handed the memory', async () => {
      const told = context(await hook(fixture('SessionStart', { session_id: 'qwen-second-session' })), 'SessionStart');
      expect(told).toContain(`recap: the memory of job ${attack.job}: 1 summaries in its chain.`);
      expect(told).toContain('parseConfigFile');
    });
  });

  describe('answers that could pass 1 MiB', () => {
    it('a SessionStart on a gate tripped by a 2 MB prompt hands over the demand made to fit, not dropped', async () => {
      const huge = `Please read all of this. ${'The configuration reader must report every error with its line. '.repeat(32_000)}`;
      expect(huge.length).toBeGreaterThan(2_000_000);
      context(await hook(prompt(huge)), 'UserPromptSubmit');
      const told = context(await hook(fixture('SessionStart', { session_id: 'qwen-third-session' })), 'SessionStart');
      expect(told).toContain(`recap: job ${attack.job} needs a summary`);
      expect(told).toContain(`${launcher} submit <<'EOF'`);
      expect(told.length).toBeLessThanOrEqual(100_000);
      expect(told).toMatch(/each cut to \d+ characters; run .* context in your run_shell_command tool to read them whole/);
      expect(told).not.toContain('[recap cut the last');
    });
  });
});
