// One hook ingress: what every way a hook call comes in (recap-hook's stdin, the launcher's
// socket, the HTTP endpoint) does around the daemon's decision, said once. An input that
// cannot be judged is refused (a tool call denied, a prompt let through with a notice), a
// prompt over the size limit is counted as far as it goes, and the daemon is asked with a
// deadline. Node built-ins only: recap-hook bundles it, and so does the daemon.
import { describeBytes, MAX_HOOK_PAYLOAD } from '../common/frames.js';
import { parseJson } from '../common/json.js';
import { newPromptId, type PromptMark } from '../common/promptSpool.js';
import { truncatedPrompt } from '../common/truncatedPrompt.js';
import { refusal, withNotice, type AgentFacts, type HookAnswer } from '../agents/facts.js';
import type { Response } from '../protocol/protocol.js';

/** The first bytes kept of an input that is not used whole: enough to name its event. */
export const HEAD_BYTES = 64 * 1024;
/** Bytes of request bodies held at once across all requests of an endpoint, as the socket server bounds its frames. */
export const MAX_HELD_BYTES = 2 * MAX_HOOK_PAYLOAD + 32 * 1024 * 1024;

/**
 * What came in, before it is judged: the whole text; the first MAX_HOOK_PAYLOAD bytes of
 * something larger; the first bytes of a body the endpoint had no room for; or why nothing
 * usable could be read (with the first bytes, when some came).
 */
export type RawInput =
  { kind: 'whole'; text: string } | { kind: 'oversized'; head: string; prefix: string } | { kind: 'busy'; head: string } | { kind: 'failed'; why: string; head?: string };

/** Why an input is refused: `cause` lets an endpoint say it in its own status codes. */
export type Refused = { cause: 'unreadable' | 'oversized' | 'busy'; event: string | undefined; why: string; advice: string };

/** An input judged: the payload to ask about, with a note for the user; or why it is refused. */
export type Judged = { payload: Record<string, unknown>; note: string | undefined; refused?: undefined } | { refused: Refused };

/** The event an input is for, when its first bytes name it. */
function eventIn(head: string | undefined): string | undefined {
  return head === undefined ? undefined : /"hook_event_name"\s*:\s*"(\w+)"/.exec(head)?.[1];
}

const unreadable = (facts: AgentFacts) => `recap-hook could not read what ${facts.title} sent; if every call is denied this way, run \`recap doctor\``;

/**
 * The payload to ask the daemon about, or why not. A prompt over MAX_HOOK_PAYLOAD is cut
 * there and counted as far as it goes (truncatedPrompt); anything else that large is refused.
 */
export function judgeInput(facts: AgentFacts, input: RawInput): Judged {
  switch (input.kind) {
    case 'failed':
      return { refused: { cause: 'unreadable', event: eventIn(input.head), why: input.why, advice: unreadable(facts) } };
    case 'busy': {
      const why = `the daemon is holding ${describeBytes(MAX_HELD_BYTES)} of hook requests already`;
      return { refused: { cause: 'busy', event: eventIn(input.head), why, advice: 'try again in a moment' } };
    }
    case 'oversized': {
      const event = eventIn(input.head);
      const payload = event !== undefined && facts.events[event] === 'prompt' ? truncatedPrompt(input.prefix) : undefined;
      if (payload === undefined) {
        const why = `the hook input is over ${describeBytes(MAX_HOOK_PAYLOAD)}, the most recap judges`;
        return { refused: { cause: 'oversized', event, why, advice: 'split the work into smaller calls (a large file as several Writes or Edits)' } };
      }
      return { payload, note: `recap: this prompt is over ${describeBytes(MAX_HOOK_PAYLOAD)}; its first ${describeBytes(MAX_HOOK_PAYLOAD)} were counted` };
    }
    case 'whole': {
      const payload = objectIn(input.text);
      if (payload !== undefined) return { payload, note: undefined };
      return { refused: { cause: 'unreadable', event: eventIn(input.text.slice(0, HEAD_BYTES)), why: whyUnusable(input.text), advice: unreadable(facts) } };
    }
  }
}

/** The agent's answer to an input refused: a tool call (or a call of no known event) denied, anything else let through with a notice. */
export function refusedAnswer(facts: AgentFacts, refused: Refused): HookAnswer {
  return refusal(facts, refused.event, refused.why, refused.advice);
}

/** The answer with the note for the user, where the agent's answer has room for one. */
export function withNote(facts: AgentFacts, answer: HookAnswer, note: string | undefined): HookAnswer {
  return note === undefined ? answer : withNotice(facts, answer, note);
}

/** The payload's event name, if it has one. */
export function eventOf(payload: unknown): string | undefined {
  const event = (payload as { hook_event_name?: unknown } | null)?.hook_event_name;
  return typeof event === 'string' ? event : undefined;
}

/** A prompt gets an id: kept in the spool if the daemon does not take it in time, it is still recorded once. */
export function promptMark(facts: AgentFacts, payload: Record<string, unknown>, at = Date.now()): PromptMark | undefined {
  const event = eventOf(payload);
  return event !== undefined && facts.events[event] === 'prompt' ? { id: newPromptId(at), at } : undefined;
}

/** The daemon's `hook` request for a payload. */
export function hookRequest(id: string, facts: AgentFacts, payload: unknown, prompt?: PromptMark): Record<string, unknown> {
  return { id, op: 'hook', agent: facts.name, payload, ...(prompt !== undefined ? { promptId: prompt.id, promptAt: prompt.at } : {}) };
}

/** What asking the daemon came to: its answer, no decision in time, or its error. */
export type Decision = { kind: 'answer'; answer: HookAnswer } | { kind: 'late'; why: string } | { kind: 'failed'; why: string; error: { code: string; message: string } };

/** The daemon's decision on `asked`, or `late` once `deadlineMs` has passed without one. */
export async function decideInTime(asked: Promise<Response>, deadlineMs: number): Promise<Decision> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), deadlineMs)));
  const response = await Promise.race([asked, late]);
  clearTimeout(timer);
  if (response === 'late') return { kind: 'late', why: `no decision within ${deadlineMs / 1000} s` };
  if ('error' in response) return { kind: 'failed', why: response.error.message, error: response.error };
  return { kind: 'answer', answer: response.result as HookAnswer };
}

/** Said as recap-hook says it when it reads stdin. */
function whyUnusable(text: string): string {
  if (text === '') return 'the hook got no input';
  const first = /\S/.exec(text)?.[0];
  return first === undefined || first === '{' ? 'the hook input is not one complete JSON object' : 'the hook input is not a JSON object';
}

function objectIn(text: string): Record<string, unknown> | undefined {
  try {
    const value = parseJson(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
