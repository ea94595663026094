// A tripped gate to attack, through the real daemon and the real `recap-hook claude`, and the
// proof that the way out still works afterwards: the exact command of the deny message, run
// in a real shell with a real summary, is accepted and the agent's next tool runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { notes } from './text.js';
import { freePort, RECAP, removeSandbox, ROOT, runCli, sandbox, startDaemon, type DaemonProcess, type Sandbox } from './daemon.js';

export const HOOK = join(ROOT, 'bin', 'recap-hook.cjs');

export type HookRun = { stdout: string; stderr: string; exitCode: number | null };

export type Attack = {
  box: Sandbox;
  daemon: DaemonProcess;
  /** The Claude Code session the attacking agent runs in. */
  session: string;
  job: string;
  /** How many times the way out has been taken: each time is a new summary. */
  wayOuts?: number;
  /** The environment of the agent's Bash tool: the box's, with the session and recap on PATH. */
  shellEnv: NodeJS.ProcessEnv;
};

/**
 * What the user asked in the window the gate tripped on: distinct, concrete prompts (paths,
 * identifiers, numbers) as a real session has, about 350 tokens together: over the
 * threshold of ATTACK_THRESHOLD.
 */
export const ATTACK_THRESHOLD = 300;

export const TRIP_PROMPTS = [
  'In src/parser/configReader.ts, parseConfigFile swallows the line number when a quoted value is not closed. ' +
    'Make it throw a ConfigSyntaxError that carries the line, the column and the key, and add a unit test with a file ' +
    'whose third line is TOKEN_THRESHOLD="500 so we can see the message the user gets. Keep the public signature as it is, ' +
    'because the CLI and the daemon both import it and I do not want to touch them in this change.',
  'The retry loop in src/net/fetchWithBackoff.ts doubles the delay forever. Cap it at 30 seconds, add jitter of up to ' +
    'twenty percent, and stop after 7 attempts with an error that lists every status code it saw. The integration test in ' +
    'test/net/backoff.test.ts uses fake timers; extend it rather than writing a new file, and make sure it still runs in under a second.',
  'We decided yesterday to store the session cache in SQLite instead of JSON files. Write the migration in ' +
    'src/cache/migrate0003.ts that reads every file under ~/.cache/acme/sessions, inserts the rows into the sessions table ' +
    'with their mtime as created_at, and leaves the JSON files in place until the user runs acme cache prune. Log how many ' +
    'rows moved and how many files were skipped because they did not parse.',
  'Question for you before you start on the dashboard: should the p95 latency panel read from the histogram in ' +
    'metrics/http_server.go or from the access log? I lean towards the histogram because the log is sampled at ten percent, ' +
    'but tell me if the bucket boundaries of 5, 25, 100 and 500 milliseconds make the p95 too coarse for the 40 ms SLO we promised.',
];

/** A summary of TRIP_PROMPTS in the default template's sections, in the agent's own words. */
export const SECTION_TEXT: Record<string, string> = {
  'User Requests':
    'The user asked for four things. parseConfigFile in src/parser/configReader.ts must raise ConfigSyntaxError with line, column ' +
    'and key for an unclosed quote, tested with a broken third line. fetchWithBackoff must cap its delay at 30 seconds with jitter ' +
    'and give up after 7 attempts. A migration, migrate0003, moves the session cache from JSON files into SQLite.',
  'Questions & Decisions':
    'The storage decision from the previous day stands: sessions live in SQLite, and the JSON files stay until acme cache prune ' +
    'removes them. The user asked whether the p95 panel should read the histogram in metrics/http_server.go or the sampled access ' +
    'log; the histogram is preferred, pending a check that its buckets resolve a 40 ms objective.',
  'Design Choices':
    'The public signature of parseConfigFile stays unchanged because both the CLI and the daemon import it. Backoff keeps fake ' +
    'timers in the existing test/net/backoff.test.ts rather than a new file. The migration records created_at from each file mtime ' +
    'and counts skipped files that fail to parse, so nothing is lost silently.',
  'Corrections & Feedback':
    'The user corrected the retry behaviour: doubling without a ceiling was wrong, and the final error must list every status ' +
    'code seen. The backoff test has to stay under one second. The user also warned that ten percent sampling makes the access ' +
    'log a poor source for latency percentiles on the dashboard.',
  'Current State':
    'No code has been changed yet in this window. Next steps: the ConfigSyntaxError change with its unit test, then the capped ' +
    'backoff, then migrate0003 with its logging. The dashboard question waits for an answer on whether buckets of 5, 25, 100 and ' +
    '500 milliseconds are fine enough.',
};

/** A child's whole output and exit code. */
export function outputOf(child: ChildProcess): Promise<HookRun> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', reject);
    child.once('close', (exitCode) => resolve({ stdout, stderr, exitCode }));
  });
}

/** Runs the real hook client with `input` on stdin (a payload object, or raw text). */
export function runHook(env: NodeJS.ProcessEnv, input: unknown, options: { cwd?: string } = {}): Promise<HookRun> {
  const child = spawn(process.execPath, [HOOK, 'claude'], { env, cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  const output = outputOf(child);
  child.stdin.on('error', () => undefined);
  child.stdin.end(typeof input === 'string' ? input : JSON.stringify(input));
  return output;
}

/** A hook payload from the attacking session, in its project unless `cwd` says otherwise. */
export function payload(attack: Attack, event: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { session_id: attack.session, cwd: attack.box.project, hook_event_name: event, ...fields };
}

export function toolCall(attack: Attack, tool: string, input: unknown, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return payload(attack, 'PreToolUse', { tool_name: tool, tool_input: input, tool_use_id: 'toolu_attack', ...fields });
}

/** The reason of a PreToolUse deny; fails the test on anything else (silence is an allow). */
export function expectDenied(run: HookRun): string {
  expect(run.exitCode, `the hook exited ${run.exitCode}: ${run.stderr}`).toBe(0);
  expect(run.stdout.trim().startsWith('{'), `the hook allowed the call (stdout: ${JSON.stringify(run.stdout)})`).toBe(true);
  const output = JSON.parse(run.stdout) as { hookSpecificOutput?: Record<string, string> };
  expect(output.hookSpecificOutput).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
  return output.hookSpecificOutput!.permissionDecisionReason!;
}

/** An allowed call: exit 0 and no deny. */
export function expectAllowed(run: HookRun): void {
  expect(run.exitCode, run.stderr).toBe(0);
  expect(run.stdout).not.toContain('"permissionDecision":"deny"');
}

/**
 * A sandbox whose user has recap on PATH (as `npm install -g` leaves it), a daemon, and a
 * gate tripped by the session's prompts through the real hook.
 */
export async function trippedGate(box: Sandbox, start: (box: Sandbox) => Promise<DaemonProcess> = startDaemon): Promise<Attack> {
  const attack = await userWithDaemon(box, start, 'attack-session-0001');
  for (const prompt of TRIP_PROMPTS) {
    const run = await runHook(box.env, payload(attack, 'UserPromptSubmit', { prompt }));
    expect(run.exitCode, run.stderr).toBe(0);
  }
  expectDenied(await runHook(box.env, toolCall(attack, 'Read', { file_path: join(box.project, 'README.md') })));
  return attack;
}

/**
 * A gate tripped in a sandbox of its own, for a file's or a describe block's beforeAll; with
 * `http`, a free port for the HTTP endpoint. A test that restarts the daemon sets
 * `attack.daemon` to the new one, so endAttack stops it.
 */
export async function trippedSandbox(options: { http?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<Attack> {
  const box = sandbox();
  if (options.http) box.env.RECAP_HTTP_PORT = String(await freePort());
  return trippedGate(box, (b) => startDaemon(b, options.env ?? {}));
}

/** Its afterAll: the daemon (continued first, if a test stopped it) killed, the sandbox removed. */
export async function endAttack(attack: Attack | undefined): Promise<void> {
  if (attack === undefined) return;
  attack.daemon.child.kill('SIGCONT');
  await attack.daemon.stop('SIGKILL');
  removeSandbox(attack.box);
}

/** The submit command a deny reason names, from its first line to the closing EOF. */
export function submitCommandIn(reason: string): string {
  const lines = reason.split('\n');
  const start = lines.findIndex((l) => /\bsubmit\b.*<<'EOF'$/.test(l));
  expect(start, `no submit command in the deny reason:\n${reason}`).toBeGreaterThanOrEqual(0);
  const end = lines.indexOf('EOF', start + 1);
  expect(end).toBeGreaterThan(start);
  return lines.slice(start, end + 1).join('\n');
}

/** The command with its Gist line and each section's placeholder line replaced by a real summary of the window. */
export function filledIn(command: string, round = 0): string {
  let section: string | undefined;
  let index = -1;
  return command
    .split('\n')
    .map((line) => {
      if (/^Gist: <.*>$/.test(line)) return `Gist: round ${round} of the window on the config parser and its retries, summarized for the next session`;
      const heading = /^## (.+)$/.exec(line);
      if (heading) {
        section = heading[1];
        index += 1;
        return line;
      }
      if (/^<.*>$/.test(line) && section !== undefined) return round === 0 ? (SECTION_TEXT[section] ?? line) : laterRound(index, round);
      return line;
    })
    .join('\n');
}

/** Concrete things of TRIP_PROMPTS, one sentence per section, that keep a later round grounded. */
const GROUNDING = [
  'It still concerns parseConfigFile in src/parser/configReader.ts and the ConfigSyntaxError it should raise.',
  'fetchWithBackoff keeps its cap of 30 seconds and its limit of 7 attempts.',
  'migrate0003 moves the session cache into SQLite while the JSON files stay.',
  'The histogram in metrics/http_server.go stays the preferred source for the p95 panel.',
  'The 40 ms objective and the buckets of 5, 25, 100 and 500 milliseconds remain open.',
];

/**
 * Section `index` of the summary a later round of the same window writes: other sentences
 * than every round before (a resubmitted summary is rejected), still naming the window's things.
 */
function laterRound(index: number, round: number): string {
  return `${notes(3, (round * GROUNDING.length + index) * 3)} ${GROUNDING[index % GROUNDING.length]}`;
}

/** Runs a command as the agent's Bash tool would: bash -c, in the project, with its env. */
export function runShell(attack: Attack, command: string, cwd = attack.box.project): Promise<HookRun> {
  return outputOf(spawn('bash', ['-c', command], { cwd, env: attack.shellEnv, stdio: ['ignore', 'pipe', 'pipe'] }));
}

/**
 * Where the way out is taken: the agent's folder (the project by default), and payload fields
 * the attack leaves in every call (a poisoned transcript_path, a subagent's agent_id).
 */
export type WayOutOptions = { cwd?: string; fields?: Record<string, unknown> };

/**
 * The way out works: a fresh deny names the command; the hook lets that exact command
 * (with a real summary) through; run in a real shell it is accepted; then the agent's next
 * tool call is allowed.
 */
export async function proveWayOut(attack: Attack, options: WayOutOptions = {}): Promise<void> {
  const cwd = options.cwd ?? attack.box.project;
  const read = (where: string) => toolCall(attack, 'Read', { file_path: join(where, 'README.md') }, { ...options.fields, cwd: where });
  const reason = expectDenied(await runHook(attack.box.env, read(cwd)));
  // Each way out of the same gate is a new summary: the same text again would be rejected.
  const command = filledIn(submitCommandIn(reason), attack.wayOuts ?? 0);
  expectAllowed(await runHook(attack.box.env, toolCall(attack, 'Bash', { command, description: 'submit the summary' }, { ...options.fields, cwd })));
  const submitted = await runShell(attack, command, cwd);
  attack.wayOuts = (attack.wayOuts ?? 0) + 1;
  expect(submitted.exitCode, `the way out failed:\n${submitted.stdout}\n${submitted.stderr}`).toBe(0);
  expectAllowed(await runHook(attack.box.env, read(cwd)));
}

/**
 * The way out is still open, without taking it: a fresh deny names the command, and the
 * hook lets that exact command (with a real summary) through. Cheap enough to follow every
 * case of a family that shares one tripped gate; proveWayOut then takes it once.
 */
export async function expectWayOutOpen(attack: Attack, options: WayOutOptions = {}): Promise<string> {
  const cwd = options.cwd ?? attack.box.project;
  const reason = expectDenied(await runHook(attack.box.env, toolCall(attack, 'Read', { file_path: join(cwd, 'README.md') }, { ...options.fields, cwd })));
  const command = filledIn(submitCommandIn(reason));
  expectAllowed(await runHook(attack.box.env, toolCall(attack, 'Bash', { command, description: 'submit the summary' }, { ...options.fields, cwd })));
  return command;
}

/** The launcher the daemon keeps in its data folder: the one name of recap the gate accepts. */
export function launcherOf(attack: Attack): string {
  return join(attack.box.data, 'bin', 'recap');
}

/**
 * Like trippedGate, but the gate stays open: recap on PATH, a daemon, nothing recorded.
 * For the moves that must be denied whatever the gate's state.
 */
export async function openGate(box: Sandbox, start: (box: Sandbox) => Promise<DaemonProcess> = startDaemon): Promise<Attack> {
  return userWithDaemon(box, start, 'open-session-0001');
}

/** recap on the sandbox's PATH (as `npm install -g` leaves it), the attack's threshold, a daemon, a session. */
async function userWithDaemon(box: Sandbox, start: (box: Sandbox) => Promise<DaemonProcess>, session: string): Promise<Attack> {
  const bin = join(box.dir, 'usr-bin');
  mkdirSync(bin, { recursive: true });
  symlinkSync(RECAP, join(bin, 'recap'));
  box.env.PATH = `${bin}:${box.env.PATH ?? ''}`;
  writeFileSync(box.config, `TOKEN_THRESHOLD=${ATTACK_THRESHOLD}\n`);
  const daemon = await start(box);
  return { box, daemon, session, job: jobIdFor(box.project), shellEnv: { ...box.env, CLAUDE_CODE_SESSION_ID: session } };
}

/**
 * On an open gate the way on is ordinary work: a Read passes, and so does the launcher's
 * `status`, run for real in a shell.
 */
export async function expectStillWorking(attack: Attack): Promise<void> {
  expectAllowed(await runHook(attack.box.env, toolCall(attack, 'Read', { file_path: join(attack.box.project, 'README.md') })));
  const status = `${launcherOf(attack)} status`;
  expectAllowed(await runHook(attack.box.env, toolCall(attack, 'Bash', { command: status, description: 'status' })));
  const ran = await runShell(attack, status);
  expect(ran.exitCode, ran.stderr).toBe(0);
  expect(ran.stdout).toContain('open');
}

/** Whether the attacked job's gate is tripped, as `recap status` says. */
export async function isTripped(attack: Attack): Promise<boolean> {
  return (JSON.parse((await runCli(attack.box, ['status', '--json', '--job', attack.job])).stdout) as { tripped: boolean }).tripped;
}

/**
 * A tripped gate whose job has a summary to read: the way out taken once, then the gate
 * tripped again by a new window of prompts. `first` is that summary as `recap chain` lists it.
 */
export async function trippedAfterSummary(): Promise<{ attack: Attack; first: { seq: number; gist: string } }> {
  const attack = await trippedSandbox();
  await proveWayOut(attack);
  const chain = JSON.parse((await runCli(attack.box, ['chain', '--json', '--job', attack.job])).stdout) as { entries: { seq: number; gist: string }[] };
  const first = chain.entries[0]!;
  for (const prompt of TRIP_PROMPTS) expect((await runHook(attack.box.env, payload(attack, 'UserPromptSubmit', { prompt }))).exitCode).toBe(0);
  expect(await isTripped(attack)).toBe(true);
  return { attack, first };
}
