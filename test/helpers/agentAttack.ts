// A tripped (or open) gate to attack through Codex CLI's, Gemini CLI's, Qwen Code's, Copilot CLI's or opencode's own
// payload shapes: the real daemon, the real `bin/recap-hook.cjs <agent>`, payloads built on
// the fixtures the real CLIs sent (test/fixtures/agents), and the proof, in that agent's own
// terms, that the way out still works. Codex and Gemini CLI have the way out answered by the
// hook (wayOutInHook.ts): the submit is a deny whose reason is recap's output. Qwen Code runs
// it in its shell, as Claude Code does (gateAttack.ts), and so do Copilot CLI and opencode.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { RECAP, removeSandbox, sandbox, startDaemon, type DaemonProcess, type Sandbox } from './daemon.js';
import { ATTACK_THRESHOLD, filledIn, HOOK, submitCommandIn, TRIP_PROMPTS, type HookRun } from './gateAttack.js';
import { FIXTURES } from './hookRecorder.js';

/** A stand-in for an agent's attack, for naming the cases of it.each before the sandbox exists. */
export function fakeAttack(agent: AgentName): AgentAttack {
  return { agent, session: 's', box: { dir: '/x', project: '/x/p', data: '/x/d', config: '/x/c', socket: '/x/s/recap/recapd.sock' } } as AgentAttack;
}

export type AgentName = 'codex' | 'gemini' | 'qwen' | 'copilot' | 'opencode';
export const AGENTS: readonly AgentName[] = ['codex', 'gemini', 'qwen', 'copilot', 'opencode'];

type Profile = {
  /** The agent's event for a tool call, and the fixture a tool call is built on. */
  toolEvent: string;
  toolFixture: string;
  /** The agent's event for the user's prompt, its fixture, and the fields that carry the text. */
  promptEvent: string;
  promptFixture: string;
  promptFields: (text: string) => Record<string, unknown>;
  /** The shell tool as the hook sees it, and its input for a command run in `dir` (or the cwd). */
  shellTool: string;
  shellInput: (command: string, dir?: string) => Record<string, unknown>;
  /** An ordinary call of the agent's: what a tripped gate denies and an open one lets through. */
  ordinary: (project: string) => [string, Record<string, unknown>];
  /** Whether recap-hook runs the way out itself (Codex, Gemini CLI). */
  wayOutInHook: boolean;
  /** The variable that carries the session into the agent's shell, if any. */
  sessionVariable?: string;
};

export const PROFILES: Record<AgentName, Profile> = {
  codex: {
    toolEvent: 'PreToolUse',
    toolFixture: 'PreToolUse-Bash',
    promptEvent: 'UserPromptSubmit',
    promptFixture: 'UserPromptSubmit',
    promptFields: (prompt) => ({ prompt }),
    shellTool: 'Bash',
    // Codex hands the hook `cmd` as `command`, and nothing of the workdir.
    shellInput: (command) => ({ command }),
    ordinary: () => ['Bash', { command: 'cat README.md' }],
    wayOutInHook: true,
    sessionVariable: 'CODEX_SESSION_ID',
  },
  gemini: {
    toolEvent: 'BeforeTool',
    toolFixture: 'BeforeTool-run_shell_command',
    promptEvent: 'BeforeAgent',
    promptFixture: 'BeforeAgent',
    promptFields: (prompt) => ({ prompt }),
    shellTool: 'run_shell_command',
    shellInput: (command, dir) => ({ command, ...(dir !== undefined ? { dir_path: dir } : {}) }),
    ordinary: (project) => ['read_file', { file_path: join(project, 'README.md') }],
    wayOutInHook: true,
  },
  qwen: {
    toolEvent: 'PreToolUse',
    toolFixture: 'PreToolUse-run_shell_command',
    promptEvent: 'UserPromptSubmit',
    promptFixture: 'UserPromptSubmit',
    // A real submission carries submitted_prompt; the requests after a tool round do not.
    promptFields: (prompt) => ({ prompt, submitted_prompt: prompt }),
    shellTool: 'run_shell_command',
    shellInput: (command, dir) => ({ command, is_background: false, ...(dir !== undefined ? { directory: dir } : {}) }),
    ordinary: (project) => ['read_file', { file_path: join(project, 'README.md') }],
    wayOutInHook: false,
    sessionVariable: 'QWEN_CODE_SESSION_ID',
  },
  copilot: {
    toolEvent: 'PreToolUse',
    toolFixture: 'PreToolUse-Bash',
    promptEvent: 'UserPromptSubmit',
    promptFixture: 'UserPromptSubmit',
    promptFields: (prompt) => ({ prompt }),
    shellTool: 'Bash',
    shellInput: (command) => ({ command, description: 'Run a command' }),
    ordinary: (project) => ['Read', { path: join(project, 'README.md') }],
    wayOutInHook: false,
    sessionVariable: 'COPILOT_AGENT_SESSION_ID',
  },
  // recap's plugin sends these (src/agents/opencode/facts.ts); the fixtures are what it sent from real hooks.
  opencode: {
    toolEvent: 'tool_execute_before',
    toolFixture: 'tool_execute_before-bash',
    promptEvent: 'chat_message',
    promptFixture: 'chat_message',
    promptFields: (prompt) => ({ prompt }),
    shellTool: 'bash',
    shellInput: (command, dir) => ({ command, description: 'run it', ...(dir !== undefined ? { workdir: dir } : {}) }),
    ordinary: (project) => ['read', { filePath: join(project, 'README.md') }],
    wayOutInHook: false,
    sessionVariable: 'RECAP_OPENCODE_SESSION_ID',
  },
};

export type AgentAttack = {
  agent: AgentName;
  box: Sandbox;
  daemon: DaemonProcess;
  session: string;
  job: string;
  /** How many times the way out has been taken: each time is a new summary. */
  wayOuts: number;
  /** The environment of the agent's shell tool: the box's, with the session and recap on PATH. */
  shellEnv: NodeJS.ProcessEnv;
};

/** What recap-hook says before a recap command's output when it ran the command itself. */
export const RAN = 'recap ran this command for you in its hook';

const fixture = (agent: AgentName, name: string): Record<string, unknown> => JSON.parse(readFileSync(join(FIXTURES, agent, `${name}.json`), 'utf8')) as Record<string, unknown>;

/**
 * A payload of the agent's for `event`, built on the fixture the real CLI sent: the attacking
 * session, in the project, with no transcript (the fixture's is in a folder long gone).
 */
export function agentPayload(a: AgentAttack, event: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  const profile = PROFILES[a.agent];
  const base = event === profile.promptEvent ? fixture(a.agent, profile.promptFixture) : fixture(a.agent, profile.toolFixture);
  const { transcript_path: _gone, prompt: _p, submitted_prompt: _s, tool_name: _n, tool_input: _i, ...common } = base;
  const payload: Record<string, unknown> = { ...common, session_id: a.session, cwd: a.box.project, hook_event_name: event, ...fields };
  for (const [key, value] of Object.entries(fields)) if (value === undefined) delete payload[key];
  return payload;
}

/** A tool call of the agent's, in its own event and shape. */
export function agentTool(a: AgentAttack, tool: string, input: unknown, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return agentPayload(a, PROFILES[a.agent].toolEvent, { tool_name: tool, tool_input: input, ...fields });
}

/** The agent's shell tool running `command` (in `dir`, where the agent's shell takes one). */
export function agentShell(a: AgentAttack, command: string, dir?: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  const profile = PROFILES[a.agent];
  return agentTool(a, profile.shellTool, profile.shellInput(command, dir), fields);
}

export function agentPrompt(a: AgentAttack, text: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  const profile = PROFILES[a.agent];
  return agentPayload(a, profile.promptEvent, { ...profile.promptFields(text), ...fields });
}

function outputOf(child: ChildProcess): Promise<HookRun> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', reject);
    child.once('close', (exitCode) => resolve({ stdout, stderr, exitCode }));
  });
}

/** Runs the real `recap-hook <agent>` with `input` on stdin (a payload, or raw text). */
export function runAgentHook(agent: string, env: NodeJS.ProcessEnv, input: unknown, options: { cwd?: string } = {}): Promise<HookRun> {
  const child = spawn(process.execPath, [HOOK, agent], { env, cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  const output = outputOf(child);
  child.stdin!.on('error', () => undefined);
  child.stdin!.end(typeof input === 'string' ? input : JSON.stringify(input));
  return output;
}

/** The attack's hook, run with the box's environment (plus `env`). */
export const hook = (a: AgentAttack, input: unknown, env: NodeJS.ProcessEnv = {}): Promise<HookRun> =>
  runAgentHook(a.agent, { ...a.box.env, ...env }, input, { cwd: a.box.project });

/**
 * The reason of a deny in the agent's own format, and nothing else in the answer: Codex
 * fails a hook (the call runs) on a field it does not know, Gemini CLI ignores Claude Code's
 * form and Qwen Code reads a non-deny as an allow. Fails the test on anything else.
 */
export function deniedAs(agent: AgentName, run: HookRun): string {
  expect(run.exitCode, `the hook exited ${run.exitCode}: ${run.stderr}`).toBe(0);
  expect(run.stdout.trim().startsWith('{'), `the hook allowed the call (stdout: ${JSON.stringify(run.stdout)}, stderr: ${run.stderr})`).toBe(true);
  const { systemMessage, ...answer } = JSON.parse(run.stdout) as Record<string, unknown>;
  // A notice for the user (the gate tripped, a summary was accepted) may ride beside a deny.
  if (systemMessage !== undefined) expect(typeof systemMessage === 'string' && systemMessage.startsWith('recap')).toBe(true);
  if (agent === 'opencode') {
    // recap's plugin throws `deny`, which the model reads whole.
    expect(Object.keys(answer)).toEqual(['deny']);
    expect((answer.deny as string).trim()).not.toBe('');
    return answer.deny as string;
  }
  if (agent === 'gemini') {
    expect(Object.keys(answer).sort()).toEqual(['decision', 'reason']);
    expect(answer.decision).toBe('deny');
    expect(typeof answer.reason).toBe('string');
    expect((answer.reason as string).trim()).not.toBe('');
    return answer.reason as string;
  }
  if (agent === 'copilot') {
    // Top level, which Copilot CLI reads under both of its dialects.
    expect(Object.keys(answer).sort()).toEqual(['permissionDecision', 'permissionDecisionReason']);
    expect(answer.permissionDecision).toBe('deny');
    expect((answer.permissionDecisionReason as string).trim()).not.toBe('');
    return answer.permissionDecisionReason as string;
  }
  expect(Object.keys(answer)).toEqual(['hookSpecificOutput']);
  const specific = answer.hookSpecificOutput as Record<string, unknown>;
  expect(Object.keys(specific).sort()).toEqual(['hookEventName', 'permissionDecision', 'permissionDecisionReason']);
  expect(specific).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
  expect((specific.permissionDecisionReason as string).trim()).not.toBe('');
  return specific.permissionDecisionReason as string;
}

/** An answer that lets the call go on: exit 0, and no deny in any agent's format. */
export function allowedAs(run: HookRun): void {
  expect(run.exitCode, run.stderr).toBe(0);
  expect(run.stdout, 'the hook denied the call').not.toMatch(/"permissionDecision":"deny"|"decision":"(?:deny|block)"/);
  if (run.stdout.trim() !== '') expect(Object.keys(JSON.parse(run.stdout) as object).every((k) => k === 'systemMessage')).toBe(true);
}

/** A deny of the tripped gate itself: it names the job and the exact submit command. */
export function gateDenied(a: AgentAttack, run: HookRun): string {
  const reason = deniedAs(a.agent, run);
  expect(reason).toContain(`job ${a.job} `);
  submitCommandIn(reason);
  return reason;
}

/** A refusal of the protection rules: recap's own files or its wiring, named as such. */
export function protectionDenied(a: AgentAttack, run: HookRun): string {
  const reason = deniedAs(a.agent, run);
  expect(reason).toMatch(/^recap: this call was refused: /);
  return reason;
}

export const launcherOf = (a: AgentAttack): string => join(a.box.data, 'bin', 'recap');

/** A user with recap on PATH, the attack's threshold, a daemon, and a session of `agent`. */
export async function agentUser(agent: AgentName, options: { env?: NodeJS.ProcessEnv; session?: string } = {}): Promise<AgentAttack> {
  const box = sandbox();
  const bin = join(box.dir, 'usr-bin');
  mkdirSync(bin, { recursive: true });
  symlinkSync(RECAP, join(bin, 'recap'));
  box.env.PATH = `${bin}:${box.env.PATH ?? ''}`;
  writeFileSync(box.config, `TOKEN_THRESHOLD=${ATTACK_THRESHOLD}\n`);
  writeFileSync(join(box.project, 'README.md'), '# the project\n');
  const daemon = await startDaemon(box, options.env ?? {});
  const session = options.session ?? `${agent}-attack-session-0001`;
  const variable = PROFILES[agent].sessionVariable;
  const shellEnv = { ...box.env, ...(variable !== undefined ? { [variable]: session } : {}) };
  return { agent, box, daemon, session, job: jobIdFor(box.project), wayOuts: 0, shellEnv };
}

/** The user's prompts of the window, through the agent's own prompt event, until the gate trips. */
export async function trip(a: AgentAttack): Promise<void> {
  for (const prompt of TRIP_PROMPTS) {
    const run = await hook(a, agentPrompt(a, prompt));
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(/"decision":"(?:deny|block)"|"permissionDecision"/);
  }
  const [tool, input] = PROFILES[a.agent].ordinary(a.box.project);
  gateDenied(a, await hook(a, agentTool(a, tool, input)));
}

/** A gate tripped by the agent's prompts, for a describe block's beforeAll. */
export async function trippedAgent(agent: AgentName, options: { env?: NodeJS.ProcessEnv } = {}): Promise<AgentAttack> {
  const a = await agentUser(agent, options);
  await trip(a);
  return a;
}

/** Its afterAll: the daemon (continued first, if a test stopped it) killed, the sandbox removed. */
export async function endAgentAttack(a: AgentAttack | undefined): Promise<void> {
  if (a === undefined) return;
  a.daemon.child.kill('SIGCONT');
  await a.daemon.stop('SIGKILL');
  removeSandbox(a.box);
}

/** A fresh deny of an ordinary call, and the submit command it names with a real summary in it. */
async function submitCommand(a: AgentAttack, round: number, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const [tool, input] = PROFILES[a.agent].ordinary(a.box.project);
  return filledIn(submitCommandIn(gateDenied(a, await hook(a, agentTool(a, tool, input), env))), round);
}

/**
 * The way out is open, without taking it: a fresh deny names the submit command; the agent's
 * shell call of it is let through (Qwen Code), or recap's own `status`, run by the hook,
 * reports the gate tripped (Codex, Gemini CLI: running the submit would take the way out).
 */
export async function wayOutOpen(a: AgentAttack, env: NodeJS.ProcessEnv = {}): Promise<void> {
  const command = await submitCommand(a, a.wayOuts, env);
  if (PROFILES[a.agent].wayOutInHook) {
    const reason = deniedAs(a.agent, await hook(a, agentShell(a, `${launcherOf(a)} status`), env));
    expect(reason.startsWith(RAN)).toBe(true);
    expect(reason).toContain(`job ${a.job}: gate TRIPPED`);
  } else {
    allowedAs(await hook(a, agentShell(a, command), env));
  }
}

/** Runs a command as the agent's shell tool would: bash -c, in the project, with its env. */
export function runShell(a: AgentAttack, command: string): Promise<HookRun> {
  return outputOf(spawn('bash', ['-c', command], { cwd: a.box.project, env: a.shellEnv, stdio: ['ignore', 'pipe', 'pipe'] }));
}

/**
 * The way out works: a fresh deny names the submit command; with a real summary it is
 * accepted (by the hook for Codex and Gemini CLI, by a real shell for Qwen Code); the
 * agent's next ordinary call runs.
 */
export async function proveAgentWayOut(a: AgentAttack): Promise<void> {
  const command = await submitCommand(a, a.wayOuts);
  const call = agentShell(a, command);
  if (PROFILES[a.agent].wayOutInHook) {
    const reason = deniedAs(a.agent, await hook(a, call));
    expect(reason.startsWith(RAN), reason).toBe(true);
    expect(reason, reason).toContain('Summary accepted');
  } else {
    allowedAs(await hook(a, call));
    const submitted = await runShell(a, command);
    expect(submitted.exitCode, `the way out failed:\n${submitted.stdout}\n${submitted.stderr}`).toBe(0);
  }
  a.wayOuts += 1;
  const [tool, input] = PROFILES[a.agent].ordinary(a.box.project);
  allowedAs(await hook(a, agentTool(a, tool, input)));
}

/** The way out taken, then the window's prompts again: tripped once more, for the next attack. */
export async function proveAndRetrip(a: AgentAttack): Promise<void> {
  await proveAgentWayOut(a);
  await trip(a);
}

/** On an open gate ordinary work goes on: an ordinary call and recap's `status` pass. */
export async function stillWorking(a: AgentAttack): Promise<void> {
  const [tool, input] = PROFILES[a.agent].ordinary(a.box.project);
  allowedAs(await hook(a, agentTool(a, tool, input)));
  const status = agentShell(a, `${launcherOf(a)} status`);
  if (PROFILES[a.agent].wayOutInHook) {
    const reason = deniedAs(a.agent, await hook(a, status));
    expect(reason.startsWith(RAN)).toBe(true);
    expect(reason).toContain('gate open');
  } else {
    allowedAs(await hook(a, status));
  }
}

/** A named attack: the payload the agent's CLI would hand the hook. */
export type Case = [label: string, payload: Record<string, unknown>];

/**
 * Runs every case through the hook, a few at a time, and fails with the list of those not
 * denied in the agent's format (or not by `check`'s standard): one test sees every miss.
 */
export async function expectEveryDenied(a: AgentAttack, cases: Case[], check: (a: AgentAttack, run: HookRun) => string = (x, run) => deniedAs(x.agent, run)): Promise<void> {
  const missed: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const [label, payload] = cases[next++]!;
      const run = await hook(a, payload);
      try {
        check(a, run);
      } catch (error) {
        missed.push(`${label}: ${(error as Error).message.split('\n')[0]} (stdout ${JSON.stringify(run.stdout.slice(0, 200))})`);
      }
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
  expect(missed, `${missed.length} of ${cases.length} attacks were not denied as they must be`).toEqual([]);
}
