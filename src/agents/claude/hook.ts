// Claude Code's hook payloads read into recap's terms: a prompt, a tool call, a question
// answered (AskUserQuestion's PostToolUse), a session start.
import { z } from 'zod';
import type { HookCall, ParsedHook } from '../adapter.js';
import { common, readPayload, text, tool } from '../payload.js';
import { claudeFacts } from './facts.js';

const payloads = {
  UserPromptSubmit: common.extend({ prompt: z.string() }),
  PreToolUse: tool,
  PostToolUse: tool.extend({ tool_response: z.unknown() }),
  SessionStart: common.extend({ source: text.optional() }),
};
type Payload = z.infer<typeof tool> & { prompt?: string; tool_response?: unknown };

export function parseClaudeHook(payload: unknown): ParsedHook {
  return readPayload(payload, claudeFacts, payloads, callOf);
}

function callOf(name: string, data: Payload): HookCall {
  switch (claudeFacts.events[name]) {
    case 'prompt':
      return { kind: 'prompt', text: data.prompt ?? '' };
    case 'tool':
      return { kind: 'tool', call: claudeFacts.toolCall(data.tool_name, data.tool_input) };
    case 'toolUsed':
      return data.tool_name === 'AskUserQuestion' ? { kind: 'toolUsed', qa: questionsAndAnswers(data.tool_input, data.tool_response) } : { kind: 'toolUsed' };
    default:
      return { kind: 'sessionStart' };
  }
}

const asked = z.object({ questions: z.array(z.object({ question: z.string() }).loose()) }).loose();
const answered = z.object({ answers: z.record(z.string(), z.unknown()).optional() }).loose();

/** "Q: ... / A: ..." for every question, with the answer the user gave. */
export function questionsAndAnswers(input: unknown, response: unknown): string {
  const questions = asked.safeParse(input);
  if (!questions.success) return '';
  const answers = answered.safeParse(response);
  const given = answers.success ? (answers.data.answers ?? {}) : {};
  return questions.data.questions
    .map(({ question }) => {
      const answer = given[question];
      return `Q: ${question}\nA: ${answer === undefined ? '(no answer)' : typeof answer === 'string' ? answer : JSON.stringify(answer)}`;
    })
    .join('\n\n');
}
