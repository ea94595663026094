// Qwen Code's hook payloads read into recap's terms: a prompt the user submitted, a tool
// call, a question answered (ask_user_question's PostToolUse), a session start.
import { z } from 'zod';
import { describeIssues } from '../../daemon/protocol.js';
import type { Caller, HookCall, ParsedHook } from '../adapter.js';
import { qwenFacts } from './facts.js';

const text = z.string().max(256);

const common = z.object({
  hook_event_name: z.string().max(64),
  cwd: z.string().startsWith('/').max(4096),
  transcript_path: z.string().max(4096).optional(),
  session_id: text.optional(),
  agent_id: text.optional(),
  timestamp: z.string().max(64).optional(),
});
const tool = common.extend({ tool_name: z.string().min(1).max(256), tool_input: z.unknown() });
const payloads = {
  // `prompt` is what goes to the model (the user's text with its @-files read in, or "" on
  // the requests after a tool round); `submitted_prompt` is the user's own text, and only
  // a real submission carries it.
  UserPromptSubmit: common.extend({ prompt: z.string(), submitted_prompt: z.string().optional() }),
  PreToolUse: tool,
  PostToolUse: tool.extend({ tool_response: z.unknown() }),
  SessionStart: common.extend({ source: text.optional() }),
};

type Payload = z.infer<typeof tool> & { prompt?: string; submitted_prompt?: string; tool_response?: unknown };

export function parseQwenHook(payload: unknown): ParsedHook {
  const raw = (typeof payload === 'object' && payload !== null ? payload : {}) as Record<string, unknown>;
  const name = typeof raw.hook_event_name === 'string' ? raw.hook_event_name : undefined;
  if (name === undefined || !Object.hasOwn(payloads, name)) return { ok: true, call: undefined, event: raw.hook_event_name };
  const parsed = payloads[name as keyof typeof payloads].safeParse(payload);
  if (!parsed.success) return unexpected(raw, name, describeIssues(parsed.error));
  const data = parsed.data as Payload;
  const call = callOf(name, data);
  // The requests after a tool round fire UserPromptSubmit too: not a prompt, nothing to do.
  if (call === undefined) return { ok: true, call: undefined, event: name };
  return { ok: true, call, caller: callerOf(data) };
}

function callOf(name: string, data: Payload): HookCall | undefined {
  switch (qwenFacts.events[name]) {
    case 'prompt':
      if (data.submitted_prompt !== undefined) return { kind: 'prompt', text: data.submitted_prompt };
      return rebuilt(data) ? { kind: 'prompt', text: data.prompt ?? '' } : undefined;
    case 'tool':
      return { kind: 'tool', call: qwenFacts.toolCall(data.tool_name, data.tool_input) };
    case 'toolUsed':
      return data.tool_name === 'ask_user_question' ? { kind: 'toolUsed', qa: questionsAndAnswers(data.tool_input, data.tool_response) } : { kind: 'toolUsed' };
    default:
      return { kind: 'sessionStart' };
  }
}

/**
 * A prompt over recap-hook's 64 MiB, rebuilt by it from the first 64 MiB (truncatedPrompt):
 * `submitted_prompt`, which Qwen Code sends after `prompt`, was cut off, and so was
 * `timestamp`, which Qwen Code sends with every event. What arrived of the prompt counts.
 */
const rebuilt = (data: Payload) => data.timestamp === undefined && data.prompt !== undefined && data.prompt !== '';

/** A subagent by its id; the main agent otherwise. */
function callerOf(data: z.infer<typeof common>): Caller {
  return {
    cwd: data.cwd,
    ...(data.session_id !== undefined ? { session: data.session_id } : {}),
    agent: data.agent_id ?? 'main',
    ...(data.transcript_path !== undefined ? { transcript: data.transcript_path } : {}),
  };
}

/** A payload of an unexpected shape, with what can still be told of its caller. */
function unexpected(raw: Record<string, unknown>, event: string, problems: string): ParsedHook {
  const session = typeof raw.session_id === 'string' && raw.session_id.length <= 256 ? raw.session_id : undefined;
  const cwd = typeof raw.cwd === 'string' && raw.cwd.startsWith('/') && raw.cwd.length <= 4096 ? raw.cwd : undefined;
  const toolCall = qwenFacts.events[event] === 'tool';
  return { ok: false, event, toolCall, problems: problems.slice(0, 500), ...(session !== undefined ? { session } : {}), ...(cwd !== undefined ? { cwd } : {}) };
}

const asked = z.object({ questions: z.array(z.object({ question: z.string() }).loose()) }).loose();
/**
 * What ask_user_question hands back (Qwen Code 0.24.4's source; `-p` runs cannot ask): the
 * model's text, and for the display each answer beside its question.
 */
const answered = z.object({ llmContent: z.unknown().optional(), returnDisplay: z.unknown().optional() }).loose();
const answers = z.object({ answers: z.array(z.object({ question: z.string(), answer: z.unknown() }).loose()) }).loose();

/** "Q: ... / A: ..." for every question, with the answer the user gave. */
export function questionsAndAnswers(input: unknown, response: unknown): string {
  const questions = asked.safeParse(input);
  if (!questions.success) return '';
  const result = answered.safeParse(response);
  const given = new Map<string, unknown>();
  const display = answers.safeParse(result.success ? result.data.returnDisplay : undefined);
  if (display.success) for (const { question, answer } of display.data.answers) given.set(question, answer);
  // Declined, or a display of another shape: the model's text says what became of the questions.
  const told = result.success && typeof result.data.llmContent === 'string' && given.size === 0 ? result.data.llmContent : undefined;
  return questions.data.questions
    .map(({ question }) => {
      const answer = given.get(question);
      const shown = answer === undefined ? (told ?? '(no answer)') : typeof answer === 'string' ? answer : JSON.stringify(answer);
      return `Q: ${question}\nA: ${shown}`;
    })
    .join('\n\n');
}
