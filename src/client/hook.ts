// recap-hook <agent>: the hook Claude Code runs on every event. It reads one JSON object
// from stdin (with a deadline), forwards it to the daemon, prints the answer and exits with
// its code. Node built-ins only, so it starts as fast as Node can; it never hangs past its
// deadline and never prints a stack trace into the agent.
import { writeSync } from 'node:fs';
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

/** The length of the first complete JSON object at the start of `text`, if it is all there. */
export function firstObjectLength(text: string): number | undefined {
  const start = text.search(/\S/);
  if (start === -1 || text[start] !== '{') return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth += 1;
    else if (c === '}' || c === ']') {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
  }
  return undefined;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  const length = firstObjectLength(text);
  if (length === undefined) return undefined;
  try {
    const value = JSON.parse(text.slice(0, length)) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The first complete JSON object on stdin: some agents keep stdin open after writing it.
 * Read through the stdin stream, not fs.read: a read blocked in Node's thread pool on an
 * open pipe would keep the process from exiting after the deadline.
 */
function readPayload(): Promise<Record<string, unknown> | undefined> {
  return new Promise((resolve) => {
    let text = '';
    const done = (value: Record<string, unknown> | undefined) => {
      clearTimeout(timer);
      process.stdin.removeAllListeners('data');
      process.stdin.pause();
      resolve(value);
    };
    const timer = setTimeout(() => done(parseObject(text)), STDIN_DEADLINE_MS);
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk: string) => {
      text += chunk;
      if (chunk.includes('}')) {
        const value = parseObject(text);
        if (value !== undefined) done(value);
      }
    });
    process.stdin.once('end', () => done(parseObject(text)));
    process.stdin.once('error', () => done(undefined));
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
  if (payload === undefined) {
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
