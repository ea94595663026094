// recap-hook <agent>: the hook Claude Code runs on every event. It reads one JSON object
// from stdin (with a deadline), forwards it to the daemon, prints the answer and exits with
// its code. Node built-ins only, so it starts as fast as Node can; it never hangs past its
// deadline and never prints a stack trace into the agent. scripts/bundle-hook.mjs builds it
// into bin/recap-hook.cjs; what it does when the daemon does not answer is in hookFallback.ts.
import { writeSync } from 'node:fs';
import { socketPath } from '../common/paths.js';
import { Client, DaemonUnavailable } from './socketClient.js';

const AGENTS = new Set(['claude']);
const STDIN_DEADLINE_MS = 2000;
/** Well inside the 10 s timeout `recap install` gives the hook. */
const TOTAL_DEADLINE_MS = 8000;
const START_DEADLINE_MS = 4000;

export type Answer = { stdout: string; exitCode: number };

let finished = false;
function finish(answer: Answer): void {
  if (finished) return;
  finished = true;
  // An fd write, not process.stdout: creating that stream costs milliseconds.
  if (answer.stdout) writeSync(1, answer.stdout);
  // Nothing may keep the hook alive once it has answered (a half-open socket, a pending read).
  process.exit(answer.exitCode);
}

/** The length of the first complete JSON object at the start of `text`, if it is all there. */
function firstObjectLength(text: string): number | undefined {
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

/** Loaded only when the daemon does not answer: the usual path neither parses nor runs it. */
const fallback = () => import('./hookFallback.js');

async function main(): Promise<void> {
  const agent = process.argv[2] ?? '';
  if (!AGENTS.has(agent)) {
    process.stderr.write(`recap-hook: unknown agent ${JSON.stringify(agent)}; usage: recap-hook claude\n`);
    finish({ stdout: '', exitCode: 1 });
    return;
  }
  // Connecting while stdin is read saves the milliseconds each takes.
  const reading = readPayload();
  const connecting = connect();
  connecting.catch(() => undefined);
  const payload = await reading;
  if (payload === undefined) {
    const message = 'recap: the hook input was not one JSON object; this call was not checked';
    finish({ stdout: JSON.stringify({ systemMessage: message }), exitCode: 0 });
    return;
  }
  setTimeout(() => void daemonDown(payload, `no answer within ${TOTAL_DEADLINE_MS / 1000} s`), TOTAL_DEADLINE_MS).unref();
  try {
    const client = await connecting;
    finish(await client.request<Answer>('hook', { agent, payload }, TOTAL_DEADLINE_MS));
  } catch (error) {
    await daemonDown(payload, (error as Error).message);
  }
}

/** Answers as ON_DAEMON_DOWN says: the daemon could not be reached. */
async function daemonDown(payload: unknown, why: string): Promise<void> {
  let answer: Answer;
  try {
    answer = (await fallback()).daemonDown(payload, why);
  } catch (error) {
    const message = `recap: the daemon is not reachable (${why}) and recap-hook is damaged (${(error as Error).message}); this call was not checked. Reinstall recap.`;
    answer = { stdout: JSON.stringify({ systemMessage: message }), exitCode: 0 };
  }
  finish(answer);
}

/** The daemon's socket; when nobody answers, start the daemon and wait for it. */
async function connect(): Promise<Client> {
  try {
    return await Client.connect(socketPath());
  } catch (error) {
    if (!(error instanceof DaemonUnavailable)) throw error;
    return (await fallback()).startAndConnect(START_DEADLINE_MS);
  }
}

process.on('uncaughtException', (error) => void daemonDown(undefined, error.message));
void main();
