// Gemini CLI's hook payloads read into recap's terms: a prompt (BeforeAgent, once per user
// prompt), a tool call (BeforeTool), a question answered (AfterTool on ask_user), a session
// start.
import { z } from 'zod';
import type { HookCall, ParsedHook } from '../adapter.js';
import { common, readPayload, sessionEnd, text, tool } from '../payload.js';
import { geminiFacts } from './facts.js';

const payloads = {
  BeforeAgent: common.extend({ prompt: z.string() }),
  BeforeTool: tool,
  AfterTool: tool.extend({ tool_response: z.unknown() }),
  SessionStart: common.extend({ source: text.optional() }),
  SessionEnd: sessionEnd,
};
type Payload = z.infer<typeof tool> & { prompt?: string; tool_response?: unknown; reason?: string };

export function parseGeminiHook(payload: unknown): ParsedHook {
  return readPayload(payload, geminiFacts, payloads, callOf);
}

function callOf(name: string, data: Payload): HookCall {
  switch (geminiFacts.events[name]) {
    case 'prompt':
      return { kind: 'prompt', text: userPrompt(data.prompt ?? '') };
    case 'tool':
      return { kind: 'tool', call: geminiFacts.toolCall(data.tool_name, data.tool_input) };
    case 'toolUsed':
      return data.tool_name === 'ask_user' ? { kind: 'toolUsed', qa: questionsAndAnswers(data.tool_input, data.tool_response) } : { kind: 'toolUsed' };
    case 'sessionEnd':
      return { kind: 'sessionEnd', ...(data.reason !== undefined ? { reason: data.reason } : {}) };
    default:
      return { kind: 'sessionStart' };
  }
}

/**
 * The user's own words in a BeforeAgent prompt. In `-p` the CLI puts the SessionStart hooks'
 * context (recap's memory among it) in front of the prompt as `<hook_context>...</hook_context>`,
 * and its own `<session_context>` can ride along: neither is the user's. The CLI writes `<`
 * and `>` inside a hook's context as `&lt;` and `&gt;`, so a block ends at its own closing tag.
 */
export function userPrompt(prompt: string): string {
  return prompt
    .replace(/<hook_context>[\s\S]*?<\/hook_context>/g, '')
    .replace(/<session_context>[\s\S]*?<\/session_context>/g, '')
    .trim();
}

const asked = z.object({ questions: z.array(z.object({ question: z.string() }).loose()) }).loose();
/** ask_user's result: `{"answers": {"0": "...", "1": "..."}}` as text, keyed by the question's index. */
const answered = z.object({ llmContent: z.string() }).loose();
const answers = z.object({ answers: z.record(z.string(), z.unknown()) }).loose();

/** "Q: ... / A: ..." for every question, with the answer the user gave. */
export function questionsAndAnswers(input: unknown, response: unknown): string {
  const questions = asked.safeParse(input);
  if (!questions.success) return '';
  const given = answersIn(response);
  return questions.data.questions
    .map(({ question }, index) => {
      const answer = given[String(index)];
      return `Q: ${question}\nA: ${answer === undefined ? '(no answer)' : typeof answer === 'string' ? answer : JSON.stringify(answer)}`;
    })
    .join('\n\n');
}

function answersIn(response: unknown): Record<string, unknown> {
  const result = answered.safeParse(response);
  if (!result.success) return {};
  try {
    const parsed = answers.safeParse(JSON.parse(result.data.llmContent));
    return parsed.success ? parsed.data.answers : {};
  } catch {
    return {}; // "User dismissed ask_user dialog without answering."
  }
}
