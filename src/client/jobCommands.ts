// What the CLI's commands share, and the commands that only ask the daemon about a job
// (status, context, chain, replay, verify, show, decisions). Kept apart from cli.ts so quick.ts can run these without
// loading yargs and the rest of the CLI: nothing here may import either.
import type { Argv } from 'yargs';
import { UserError } from '../common/errors.js';
import { sessionFromEnv } from '../agents/known.js';
import type { Op, RequestFields, ResponseOf } from '../protocol/protocol.js';
import { connectOrStart } from './autostart.js';
import { withConfirmation } from './terminalConfirm.js';
import { printReplay, printVerified } from './present/audit.js';
import { printChain, printDecisions, printShown, printStatus } from './present/gate.js';
import { progress } from './progress.js';
import { write } from './stdout.js';
import { timeFlag } from './time.js';
import { givenValue } from './present/counted.js';

export type Global = { json: boolean; job?: string | undefined; debug: boolean };

/** A command file's part of the CLI: the commands it adds (src/client/commands/). */
export type Builder = (y: Argv<Global>) => Argv<Global>;

/** A failure the user can act on: printed as one line, no stack. */
export class UsageError extends UserError {}

/**
 * What the daemon needs to find the job (it alone resolves it, as the hook's is): an
 * explicit --job or RECAP_JOB wins; else the agent session the command runs in (an agent's
 * shell tool sets its session variable, CLAUDE_CODE_SESSION_ID for one), whose job stays the one it started with;
 * else the project of this folder, as for a user at a terminal.
 */
export function target(argv: Global): { job?: string; session?: string; cwd?: string } {
  const job = argv.job ?? nonEmpty(process.env.RECAP_JOB);
  const session = sessionFromEnv(process.env);
  // A named job needs no folder: it still works in a folder removed under the shell.
  const cwd = job !== undefined ? currentFolder() : here();
  return { ...(job !== undefined ? { job } : {}), ...(session !== undefined && session.length <= 256 ? { session } : {}), ...(cwd !== undefined ? { cwd } : {}) };
}

/** The current folder, or undefined when it was removed under this shell. */
export function currentFolder(): string | undefined {
  try {
    return process.cwd();
  } catch {
    return undefined;
  }
}

export function here(): string {
  const folder = currentFolder();
  if (folder === undefined) throw new UsageError('the current folder no longer exists (it was removed); cd to a folder that does, or give --job');
  return folder;
}

/** The job a read command is about: --job, else RECAP_JOB; none means every job. */
export function jobOf(argv: { job?: string | undefined }): { job?: string } {
  const job = argv.job ?? (process.env.RECAP_JOB || undefined);
  return job !== undefined ? { job } : {};
}

const nonEmpty = (value: string | undefined) => (value === undefined || value === '' ? undefined : value);

/**
 * Whether `recap status` has a job to show: a --job, RECAP_JOB or agent session names one;
 * else this folder's project does, unless the folder is gone (a shell left in a removed
 * folder), and then the daemon's status is shown instead.
 */
function jobResolvable(argv: Global): boolean {
  if (argv.job !== undefined || nonEmpty(process.env.RECAP_JOB) !== undefined || sessionFromEnv(process.env) !== undefined) return true;
  return currentFolder() !== undefined;
}

/** Asks the daemon (started if none answers) one request, and closes the connection. */
export async function ask<O extends Op>(op: O, fields: RequestFields<O>, timeoutMs?: number, onProgress?: (done: number) => void): Promise<ResponseOf<O>> {
  const client = await connectOrStart();
  try {
    return await withConfirmation((confirm) => client.request(op, confirm === undefined ? fields : { ...fields, confirm }, timeoutMs, onProgress));
  } finally {
    client.close();
  }
}

/** As ask, and says the daemon's word on the request, such as a job named that has no events. */
export async function call<O extends Op>(op: O, fields: RequestFields<O>): Promise<ResponseOf<O>> {
  const result = await ask(op, fields);
  if (result !== null && typeof result === 'object' && 'notice' in result && typeof result.notice === 'string') process.stderr.write(`recap: ${result.notice}\n`);
  return result;
}

export function output(argv: Global, result: unknown, human: () => void): void {
  if (argv.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else human();
}

export async function status(argv: Global & { daemon: boolean }): Promise<void> {
  if (argv.daemon || !jobResolvable(argv)) {
    const [{ daemonState }, { printDaemonState }] = await Promise.all([import('./lifecycle.js'), import('./present/daemon.js')]);
    const state = await daemonState();
    output(argv, state, () => printDaemonState(state));
    if (!state.running) process.exitCode = 1;
    return;
  }
  const result = await call('status', target(argv));
  output(argv, result, () => printStatus(result));
}

export async function context(argv: Global): Promise<void> {
  const result = await call('context', target(argv));
  output(argv, result, () => process.stdout.write(`${result.text}\n`));
}

export async function chain(argv: Global): Promise<void> {
  const result = await call('chain', target(argv));
  output(argv, result, () => printChain(result));
}

/** `recap replay --at`: the gates and chains as they were at a moment (a sequence number, #N or N, or a time). */
export async function replay(argv: Global & { at: string }): Promise<void> {
  const at = /^#?\d+$/.test(argv.at) ? { atSeq: Number(argv.at.replace('#', '')) } : { atTime: timeFlag(argv.at, '--at', argv.json) };
  const shown = progress('replay');
  const result = await ask('replay', { ...at, ...jobOf(argv) }, 60_000, shown.update);
  shown.done();
  if (argv.json) return void write(1, `${JSON.stringify(result, null, 2)}\n`);
  printReplay(result, at.atTime);
}

/** `recap verify`: every hash and link checked, and a full replay compared with the daemon's state; exit code 2 when something is broken. */
export async function verify(argv: Global): Promise<void> {
  const job = jobOf(argv);
  const shown = progress('verify');
  const result = await ask('verify', job, 60_000, shown.update);
  shown.done();
  if (argv.json) write(1, `${JSON.stringify(result, null, 2)}\n`);
  else printVerified(result, job.job);
  if (!result.ok) process.exitCode = 2;
}

/** `recap show N`: summary #N of the job whole; N as recap chain and the memory's index give it (12 or #12). */
export async function show(argv: Global & { seq: string; original?: boolean }): Promise<void> {
  if (!/^#?\d{1,15}$/.test(argv.seq) || Number(argv.seq.replace('#', '')) < 1) {
    throw new UsageError(`recap show takes a summary's number such as 12 or #12 (recap chain lists them), not ${givenValue(argv.seq)}`);
  }
  const result = await call('show', { ...target(argv), seq: Number(argv.seq.replace('#', '')), ...(argv.original === true ? { original: true } : {}) });
  output(argv, result, () => printShown(result));
}

/** `recap decisions`: the job's decision log, newest first, the older entries past 100 as an index. */
export async function decisions(argv: Global): Promise<void> {
  const result = await call('decisions', target(argv));
  output(argv, result, () => printDecisions(result));
}
