// Qwen Code's hook payloads read into recap's terms: a prompt the user submitted, a tool
// call, a question answered (ask_user_question's PostToolUse), a session start, a compression
// about to begin (PreCompact).
import { z } from 'zod';
import type { HookCall, ParsedHook } from '../adapter.js';
import { common, readPayload, sessionEnd, text, tool } from '../payload.js';
import { qwenFacts } from './facts.js';

const payloads = {
  // `prompt` is what goes to the model (the user's text with its @-files read in, or "" on
  // the requests after a tool round); `submitted_prompt` is the user's own text, and only
  // a real submission carries it.
  UserPromptSubmit: common.extend({ prompt: z.string(), submitted_prompt: z.string().optional() }),
  PreToolUse: tool,
  PostToolUse: tool.extend({ tool_response: z.unknown() }),
  SessionStart: common.extend({ source: text.optional() }),
  SessionEnd: sessionEnd,
  // `trigger` is auto (the context passed its threshold) or manual (/compress);
  // `custom_instructions` is what followed /compress, "" when nothing did. Neither changes
  // recap's answer: Qwen Code puts the user's instructions before a hook's.
  PreCompact: common.extend({ trigger: text.optional(), custom_instructions: z.string().nullish() }),
};

type Payload = z.infer<typeof tool> & { prompt?: string; submitted_prompt?: string; tool_response?: unknown; reason?: string };

export function parseQwenHook(payload: unknown): ParsedHook {
  return readPayload(payload, qwenFacts, payloads, callOf);
}

function callOf(name: string, data: Payload): HookCall | undefined {
  switch (qwenFacts.events[name]) {
    case 'prompt':
      if (data.submitted_prompt !== undefined) return { kind: 'prompt', text: data.submitted_prompt };
      return rebuilt(data) ? { kind: 'prompt', text: data.prompt ?? '' } : undefined;
    case 'compacting':
      return { kind: 'compacting' };
    case 'tool':
      return { kind: 'tool', call: qwenFacts.toolCall(data.tool_name, data.tool_input) };
    case 'toolUsed':
      return data.tool_name === 'ask_user_question' ? { kind: 'toolUsed', qa: questionsAndAnswers(data.tool_input, data.tool_response) } : { kind: 'toolUsed' };
    case 'sessionEnd':
      return { kind: 'sessionEnd', ...(data.reason !== undefined ? { reason: data.reason } : {}) };
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
