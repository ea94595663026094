// recap-hook <agent>: the hook Claude Code runs on every event. It reads one JSON object
// from stdin (with a deadline), forwards it to the daemon, prints the answer and exits with
// its code. Node built-ins only, so it starts as fast as Node can; it never hangs past its
// deadline and never prints a stack trace into the agent.
import { read, writeSync } from 'node:fs';
import type { Client } from './socketClient.js';

const AGENTS = new Set(['claude']);
const STDIN_DEADLINE_MS = 2000;
/** Well inside the 10 s timeout `recap install` gives the hook. */
const TOTAL_DEADLINE_MS = 8000;
const START_DEADLINE_MS = 4000;

type Answer = { stdout: string; exitCode: number };

let finished = false;
function finish(answer: Answer): void {
  if (finished) return;
  finished = true;
  // fd writes and reads, not process.stdout/stdin: creating those streams costs milliseconds.
  if (answer.stdout) writeSync(1, answer.stdout);
  // Nothing may keep the hook alive once it has answered (a half-open socket, a pending read).
  process.exit(answer.exitCode);
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The first complete JSON object on stdin: some agents keep stdin open after writing it. */
function readPayload(): Promise<unknown> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const done = (value: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    const timer = setTimeout(() => done(parse(Buffer.concat(chunks).toString('utf8'))), STDIN_DEADLINE_MS);
    const next = () => {
      const buffer = Buffer.allocUnsafe(64 * 1024);
      read(0, buffer, 0, buffer.length, null, (error, bytes) => {
        if (settled) return;
        if (error || bytes === 0) return done(error ? undefined : parse(Buffer.concat(chunks).toString('utf8')));
        chunks.push(buffer.subarray(0, bytes));
        const text = Buffer.concat(chunks).toString('utf8');
        const value = text.trimEnd().endsWith('}') ? parse(text) : undefined;
        if (value !== undefined) done(value);
        else next();
      });
    };
    next();
  });
}

/** ON_DAEMON_DOWN from the user's and the project's config files (the project's wins). */
async function onDaemonDown(payload: unknown): Promise<'open' | 'closed'> {
  // Loaded only on this rare path: the hook's usual path loads as little as it can.
  const [{ existsSync, readFileSync }, { parseConfigFile }, { projectRoot }, { projectConfigPath, userConfigPath }] = await Promise.all([
    import('node:fs'),
    import('../common/configFile.js'),
    import('../common/jobs.js'),
    import('../common/paths.js'),
  ]);
  const cwd = (payload as { cwd?: unknown } | null)?.cwd;
  const files = [userConfigPath(), ...(typeof cwd === 'string' && cwd.startsWith('/') ? [projectConfigPath(projectRoot(cwd))] : [])];
  let mode: 'open' | 'closed' = 'open';
  for (const file of files) {
    try {
      if (!existsSync(file)) continue;
      const value = parseConfigFile(readFileSync(file, 'utf8'), process.env).assignments.get('ON_DAEMON_DOWN')?.value;
      if (value === 'open' || value === 'closed') mode = value;
    } catch {
      // An unreadable file leaves the mode as it was.
    }
  }
  return mode;
}

async function daemonDown(payload: unknown, why: string): Promise<Answer> {
  const event = (payload as { hook_event_name?: unknown } | null)?.hook_event_name;
  if ((await onDaemonDown(payload)) === 'closed' && event === 'PreToolUse') {
    const reason =
      `recap: the daemon is not reachable (${why}) and ON_DAEMON_DOWN=closed, so every tool is denied. ` +
      'Ask the user to start it with: recap daemon (or systemctl --user start recap.socket).';
    const output = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } };
    return { stdout: JSON.stringify(output), exitCode: 0 };
  }
  const message = `recap: the daemon is not reachable (${why}); this call was not checked. Start it with: recap daemon`;
  return { stdout: JSON.stringify({ systemMessage: message }), exitCode: 0 };
}

async function main(): Promise<void> {
  const agent = process.argv[2] ?? '';
  if (!AGENTS.has(agent)) {
    process.stderr.write(`recap-hook: unknown agent ${JSON.stringify(agent)}; usage: recap-hook claude\n`);
    finish({ stdout: '', exitCode: 1 });
    return;
  }
  // Reading stdin first, then loading the socket code and connecting while the read is
  // under way, saves the milliseconds each takes.
  const reading = readPayload();
  const connecting = connect();
  connecting.catch(() => undefined);
  const payload = await reading;
  if (payload === undefined || payload === null || typeof payload !== 'object') {
    const message = 'recap: the hook input was not one JSON object; this call was not checked';
    finish({ stdout: JSON.stringify({ systemMessage: message }), exitCode: 0 });
    return;
  }
  setTimeout(() => void daemonDown(payload, `no answer within ${TOTAL_DEADLINE_MS / 1000} s`).then(finish), TOTAL_DEADLINE_MS).unref();
  try {
    const client = await connecting;
    finish(await client.request<Answer>('hook', { agent, payload }, TOTAL_DEADLINE_MS));
  } catch (error) {
    finish(await daemonDown(payload, (error as Error).message));
  }
}

/** The daemon's socket; when nobody answers, start the daemon and wait for it. */
async function connect(): Promise<Client> {
  const [{ Client, DaemonUnavailable }, { socketPath }] = await Promise.all([import('./socketClient.js'), import('../common/paths.js')]);
  try {
    return await Client.connect(socketPath());
  } catch (error) {
    if (!(error instanceof DaemonUnavailable)) throw error;
    const { connectOrStart } = await import('./autostart.js');
    return connectOrStart(process.env, START_DEADLINE_MS);
  }
}

process.on('uncaughtException', (error) => void daemonDown(undefined, error.message).then(finish));
void main();
