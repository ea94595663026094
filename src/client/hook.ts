// recap-hook <agent>: the hook an agent runs on every event (through bin/recap-hook.sh, which
// answers from the daemon with perl or curl and hands a call here when it cannot). It reads one JSON object
// from stdin (with a deadline), forwards it to the daemon, prints the answer and exits with
// its code. Node built-ins only, so it starts as fast as Node can; it never hangs past its
// deadline and never prints a stack trace into the agent. What it does with the input around
// the daemon's decision is the hook ingress's (src/hook/ingress.ts), as in the daemon's HTTP
// endpoints. scripts/bundle-hook.mjs builds it into bin/recap-hook.cjs; what it does when the
// daemon does not answer is in hookFallback.ts (and src/hook/fallback.ts).
import { writeSync } from 'node:fs';
import { socketPath } from '../common/paths.js';
import { Client, DaemonBusy, DaemonUnavailable, NoAnswer } from './socketClient.js';
import { AGENT_FACTS, AGENT_NAMES, isAgentName } from '../agents/known.js';
import { NOTHING, refusal, type AgentFacts, type HookAnswer } from '../agents/facts.js';
import { disableSwitch } from './disableSwitch.js';
import type { PromptMark } from '../common/promptSpool.js';
import { eventOf, judgeInput, promptMark, refusedAnswer, withNote } from '../hook/ingress.js';
import { readStdin } from '../hook/stdinInput.js';

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
  // The launcher (bin/recap-hook.sh) reached the daemon, then its exchange failed: stdin is spent.
  if (process.argv[3] === '--lost') {
    const why = `recap's hook launcher lost this call when its connection to the daemon failed (${process.argv[4] ?? 'no detail'})`;
    finish(off ? NOTHING : refusal(facts, undefined, why, 'try again; if it keeps happening, run `recap doctor`'));
    return;
  }
  // Connecting while stdin is read saves the milliseconds each takes.
  const judging = readStdin().then((input) => judgeInput(facts, input));
  const connecting = connect(judging.then((judged) => judged.refused !== undefined || !endsSession(judged.payload)));
  connecting.catch(() => undefined);
  const judged = await judging;
  if (judged.refused !== undefined) {
    finish(off ? NOTHING : refusedAnswer(facts, judged.refused));
    return;
  }
  const payload = judged.payload;
  let note = judged.note;
  if (switched?.off === false) note = note === undefined ? `recap: ${switched.why}` : `${note}; ${switched.why}`;
  current = payload;
  prompt = promptMark(facts, payload, STARTED);
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
    const answer = await client.request(
      'hook',
      { agent, payload, ...(off ? { off } : {}), ...(prompt !== undefined ? { promptId: prompt.id, promptAt: prompt.at } : {}) },
      remaining(),
    );
    // An answer of another shape is no answer: printing it could crash into silence.
    if (typeof answer?.stdout !== 'string' || !Number.isInteger(answer.exitCode)) throw new Error('the daemon answered in a shape recap-hook does not know');
    finish(withNote(facts, answer, note));
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
  } catch (error) {
    // Not daemonDown: the daemon is there, so ON_DAEMON_DOWN=open must not let a tool call through.
    finish(hookFailed(payload, why, error));
  }
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
    answer = hookFailed(payload, why, error);
  }
  finish(answer);
}

/** Not even the fallback can answer: a tool call is refused, never a prompt. */
function hookFailed(payload: Record<string, unknown> | undefined, why: string, error: unknown): Answer {
  return refusal(
    facts,
    eventOf(payload),
    `recap-hook failed (${why}; ${(error as Error)?.message ?? String(error)})`,
    'reinstall recap (in its clone: npm install, then npm link) if this persists',
  );
}

/**
 * The daemon's socket; when nobody answers, start the daemon and wait for it, unless `starts`
 * says not to: a session's end is answered at once, its report lost (the agent is leaving).
 */
async function connect(starts: Promise<boolean>): Promise<Client> {
  try {
    return await Client.connect(socketPath());
  } catch (error) {
    if (!(error instanceof DaemonUnavailable) || !(await starts)) throw error;
    return (await fallback()).startAndConnect(START_DEADLINE_MS);
  }
}

/** Whether the payload is the agent's word that its session ended. */
function endsSession(payload: Record<string, unknown> | undefined): boolean {
  const event = eventOf(payload);
  return event !== undefined && Object.hasOwn(facts.events, event) && facts.events[event] === 'sessionEnd';
}

// A crash or a stop (the agent's timeout) still answers, in the safe direction.
process.on('uncaughtException', (error) => void daemonDown(current, `recap-hook crashed: ${error.message}`));
process.on('unhandledRejection', (error) => void daemonDown(current, `recap-hook crashed: ${(error as Error)?.message ?? String(error)}`));
process.once('SIGTERM', () => void daemonDown(current, 'recap-hook was stopped before the daemon answered'));
void main();
