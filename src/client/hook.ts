// recap-hook <agent>: the hook an agent runs on every event (through bin/recap-hook.sh, which
// answers from the daemon with curl and hands a call here when it cannot). It reads one JSON object
// from stdin (with a deadline), forwards it to the daemon, prints the answer and exits with
// its code. Node built-ins only, so it starts as fast as Node can; it never hangs past its
// deadline and never prints a stack trace into the agent. scripts/bundle-hook.mjs builds it
// into bin/recap-hook.cjs; what it does when the daemon does not answer is in hookFallback.ts.
import { writeSync } from 'node:fs';
import { describeBytes, MAX_HOOK_PAYLOAD } from '../common/frames.js';
import { socketPath } from '../common/paths.js';
import { truncatedPrompt } from '../common/truncatedPrompt.js';
import { Client, DaemonBusy, DaemonUnavailable, NoAnswer } from './socketClient.js';
import { AGENT_FACTS, AGENT_NAMES, isAgentName } from '../agents/known.js';
import { NOTHING, refusal, withNotice, type AgentFacts, type HookAnswer } from '../agents/facts.js';
import { disableSwitch } from './disableSwitch.js';
import { newPromptId, type PromptMark } from '../common/promptSpool.js';

/** How long stdin may stay silent; a payload still arriving (64 MiB takes a while) may go on until STDIN_TOTAL_MS. */
const STDIN_DEADLINE_MS = 2000;
const STDIN_TOTAL_MS = 5000;
/**
 * Well inside the 10 s timeout `recap install` gives the hook. RECAP_HOOK_DEADLINE_MS may
 * shorten it (never lengthen it): tests of a stalled daemon need not wait 8 s each.
 */
const TOTAL_DEADLINE_MS = Math.min(8000, Math.max(200, Number(process.env.RECAP_HOOK_DEADLINE_MS) || 8000));
/** The deadline counts from the hook's start: a slow stdin leaves less time for the daemon, not more. */
const STARTED = Date.now();
const remaining = () => Math.max(1, STARTED + TOTAL_DEADLINE_MS - Date.now());
const START_DEADLINE_MS = Math.min(4000, TOTAL_DEADLINE_MS / 2);

export type Answer = HookAnswer;

/** The agent this hook speaks for (argv[2]); set before anything is answered. */
let facts: AgentFacts;

let finished = false;
function finish(answer: Answer): void {
  if (finished) return;
  finished = true;
  // An fd write, not process.stdout: creating that stream costs milliseconds.
  if (answer.stdout) writeSync(1, answer.stdout);
  // Nothing may keep the hook alive once it has answered (a half-open socket, a pending read).
  process.exit(answer.exitCode);
}

/** What came on stdin: one JSON object, or why not, with its first bytes to tell the event. */
type Input = { kind: 'object'; payload: Record<string, unknown> } | { kind: 'unusable'; why: string; advice: string; head: string; prefix?: string };

/** The first bytes kept of an input that cannot be used: enough to find its event's name. */
const HEAD_BYTES = 64 * 1024;

/**
 * Finds where the first JSON object on a byte stream ends, a chunk at a time, keeping its
 * place between chunks: a 64 MiB payload is scanned once, not once per chunk. Bytes, not
 * characters: UTF-8 never puts an ASCII byte inside a multi-byte character.
 */
class ObjectEnd {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private started = false;
  /** Set when the stream does not start with `{`. */
  notAnObject = false;

  /** The index in `chunk` just past the object's end, if it ends in this chunk. */
  scan(chunk: Buffer): number | undefined {
    for (let i = 0; i < chunk.length; i += 1) {
      const c = chunk[i]!;
      if (!this.started) {
        if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
        if (c !== 0x7b) {
          this.notAnObject = true;
          return undefined;
        }
        this.started = true;
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 0x5c) this.escaped = true;
        else if (c === 0x22) this.inString = false;
      } else if (c === 0x22) this.inString = true;
      else if (c === 0x7b || c === 0x5b) this.depth += 1;
      else if (c === 0x7d || c === 0x5d) {
        this.depth -= 1;
        if (this.depth === 0) return i + 1;
      }
    }
    return undefined;
  }
}

function parseObject(bytes: Buffer): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(bytes.toString('utf8')) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The first complete JSON object on stdin: some agents keep stdin open after writing it.
 * Read through the stdin stream, not fs.read: a read blocked in Node's thread pool on an
 * open pipe would keep the process from exiting after the deadline. Past MAX_HOOK_PAYLOAD
 * nothing more is kept: a tool call that large is refused; a prompt is cut there and counted
 * as far as it goes (truncatedPrompt).
 */
function readInput(): Promise<Input> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const end = new ObjectEnd();
    const head = () => Buffer.concat(chunks, Math.min(size, HEAD_BYTES)).subarray(0, HEAD_BYTES).toString('utf8');
    let settled = false;
    const done = (input: Input) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      process.stdin.removeAllListeners('data');
      process.stdin.pause();
      resolve(input);
    };
    const unreadable = `recap-hook could not read what ${facts.title} sent; if every call is denied this way, run \`recap doctor\``;
    const unusable = (why: string, advice = unreadable) => done({ kind: 'unusable', why, advice, head: head() });
    const whole = () => {
      const payload = parseObject(Buffer.concat(chunks, size));
      if (payload !== undefined) done({ kind: 'object', payload });
      else unusable(size === 0 ? 'the hook got no input' : 'the hook input is not one complete JSON object');
    };
    const late = () => unusable(`the hook input did not arrive whole within ${STDIN_DEADLINE_MS / 1000} s`);
    let timer = setTimeout(late, STDIN_DEADLINE_MS);
    const started = Date.now();
    process.stdin.on('data', (chunk: Buffer) => {
      clearTimeout(timer);
      timer = setTimeout(late, Math.max(1, Math.min(STDIN_DEADLINE_MS, started + STDIN_TOTAL_MS - Date.now())));
      const at = end.scan(chunk);
      if (end.notAnObject) {
        chunks.push(chunk);
        size += chunk.length;
        unusable('the hook input is not a JSON object');
        return;
      }
      const kept = at === undefined ? chunk : chunk.subarray(0, at);
      if (size + kept.length > MAX_HOOK_PAYLOAD) {
        // What fits is kept: a prompt this large is still counted as far as it goes.
        const room = MAX_HOOK_PAYLOAD - size;
        chunks.push(kept.subarray(0, room));
        size += room;
        const prefix = Buffer.concat(chunks, size).toString('utf8');
        done({
          kind: 'unusable',
          why: `the hook input is over ${describeBytes(MAX_HOOK_PAYLOAD)}, the most recap judges`,
          advice: 'split the work into smaller calls (a large file as several Writes or Edits)',
          head: prefix.slice(0, HEAD_BYTES),
          prefix,
        });
        return;
      }
      chunks.push(kept);
      size += kept.length;
      if (at !== undefined) whole();
    });
    process.stdin.once('end', whole);
    process.stdin.once('error', (error) => unusable(`stdin could not be read (${error.message})`));
  });
}

/** The event an input is for, when its first bytes name it. */
function eventIn(head: string): string | undefined {
  return /"hook_event_name"\s*:\s*"(\w+)"/.exec(head)?.[1];
}

/** Loaded only when the daemon does not answer: the usual path neither parses nor runs it. */
const fallback = () => import('./hookFallback.js');

async function main(): Promise<void> {
  const agent = process.argv[2] ?? '';
  if (!isAgentName(agent)) {
    process.stderr.write(`recap-hook: unknown agent ${JSON.stringify(agent)}; usage: recap-hook <agent>, the agent one of: ${AGENT_NAMES.join(', ')}\n`);
    finish({ stdout: '', exitCode: 1 });
    return;
  }
  facts = AGENT_FACTS[agent];
  // RECAP_DISABLE=1 from the user's own shell lets every call through; set by anyone else it
  // is ignored, and the user is told why on every answer.
  const switched = disableSwitch();
  off = switched?.off === true;
  // The launcher (bin/recap-hook.sh) reached the daemon, then its curl failed: stdin is spent.
  if (process.argv[3] === '--lost') {
    const why = `recap's hook launcher lost this call when its connection to the daemon failed (${process.argv[4] ?? 'no detail'})`;
    finish(off ? NOTHING : refusal(facts, undefined, why, 'try again; if it keeps happening, run `recap doctor`'));
    return;
  }
  // Connecting while stdin is read saves the milliseconds each takes.
  const reading = readInput();
  const connecting = connect();
  connecting.catch(() => undefined);
  const input = await reading;
  let payload: Record<string, unknown>;
  let note: string | undefined;
  if (input.kind === 'unusable') {
    const event = eventIn(input.head);
    const rebuilt = input.prefix !== undefined && event !== undefined && facts.events[event] === 'prompt' ? truncatedPrompt(input.prefix) : undefined;
    if (rebuilt === undefined) {
      finish(off ? NOTHING : refusal(facts, eventIn(input.head), input.why, input.advice));
      return;
    }
    payload = rebuilt;
    note = `recap: this prompt is over ${describeBytes(MAX_HOOK_PAYLOAD)}; its first ${describeBytes(MAX_HOOK_PAYLOAD)} were counted`;
  } else payload = input.payload;
  if (switched?.off === false) note = note === undefined ? `recap: ${switched.why}` : `${note}; ${switched.why}`;
  current = payload;
  // A prompt gets an id: kept in the spool if the daemon does not answer, it is still recorded once.
  const event = typeof payload.hook_event_name === 'string' ? payload.hook_event_name : undefined;
  if (event !== undefined && facts.events[event] === 'prompt') prompt = { id: newPromptId(STARTED), at: STARTED };
  setTimeout(() => void daemonDown(payload, `no answer within ${TOTAL_DEADLINE_MS / 1000} s`), remaining()).unref();
  let client: Client;
  try {
    client = await connecting;
  } catch (error) {
    // Busy is there, just full; anything else here is a daemon that could not be reached or started.
    if (error instanceof DaemonBusy) await daemonFailed(payload, error.message);
    else await daemonDown(payload, (error as Error).message);
    return;
  }
  try {
    const answer = await client.request<Answer>(
      'hook',
      { agent, payload, ...(off ? { off } : {}), ...(prompt !== undefined ? { promptId: prompt.id, promptAt: prompt.at } : {}) },
      remaining(),
    );
    // An answer of another shape is no answer: printing it could crash into silence.
    if (typeof answer?.stdout !== 'string' || !Number.isInteger(answer.exitCode)) throw new Error('the daemon answered in a shape recap-hook does not know');
    finish(note !== undefined ? withNote(answer, note) : answer);
  } catch (error) {
    // Silence is a daemon that is down (or stopped): the verdict file and ON_DAEMON_DOWN.
    // Anything else is a daemon reached that did not say yes (an error, a wrong answer, the
    // connection closed) or a call that could not be sent: ON_DAEMON_DOWN=open does not
    // let it through.
    if (error instanceof NoAnswer) await daemonDown(payload, error.message);
    else await daemonFailed(payload, (error as Error).message);
  }
}

/** Answers from the fallback as daemonFailed says: a tool call is denied. */
async function daemonFailed(payload: Record<string, unknown>, why: string): Promise<void> {
  if (off) return finish(NOTHING);
  try {
    finish((await fallback()).daemonFailed(facts, payload, why, prompt));
  } catch {
    await daemonDown(payload, why);
  }
}

/** The answer with a note for the user, where the agent's answer has room for one. */
function withNote(answer: Answer, note: string): Answer {
  return withNotice(facts, answer, note);
}

/** The user switched recap off (RECAP_DISABLE=1): whatever happens, the call goes through. */
let off = false;

/** The payload being answered, for the answer of a crash or a stop. */
let current: Record<string, unknown> | undefined;

/** The mark of the prompt being answered, if it is one: kept in the spool when the daemon does not take it. */
let prompt: PromptMark | undefined;

/** Answers from the verdict file and ON_DAEMON_DOWN: the daemon did not answer. */
async function daemonDown(payload: Record<string, unknown> | undefined, why: string): Promise<void> {
  if (off) return finish(NOTHING);
  let answer: Answer;
  try {
    if (payload === undefined) throw new Error('no payload was read');
    answer = (await fallback()).daemonDown(facts, payload, why, prompt);
  } catch (error) {
    // Not even the fallback can answer: refuse a tool call, never a prompt.
    const event = typeof payload?.hook_event_name === 'string' ? payload.hook_event_name : undefined;
    answer = refusal(facts, event, `recap-hook failed (${why}; ${(error as Error).message})`, 'reinstall recap (npm install -g recap) if this persists');
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

// A crash or a stop (the agent's timeout) still answers, in the safe direction.
process.on('uncaughtException', (error) => void daemonDown(current, `recap-hook crashed: ${error.message}`));
process.on('unhandledRejection', (error) => void daemonDown(current, `recap-hook crashed: ${(error as Error)?.message ?? String(error)}`));
process.once('SIGTERM', () => void daemonDown(current, 'recap-hook was stopped before the daemon answered'));
void main();
