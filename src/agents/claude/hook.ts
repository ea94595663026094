// Claude Code's hook payloads read into recap's terms: a prompt, a tool call, a question
// answered (AskUserQuestion's PostToolUse), a session start.
import { z } from 'zod';
import { describeIssues } from '../../daemon/protocol.js';
import type { Caller, HookCall, ParsedHook } from '../adapter.js';
import { claudeFacts } from './facts.js';

const text = z.string().max(256);

const common = z.object({
  hook_event_name: z.string().max(64),
  cwd: z.string().startsWith('/').max(4096),
  transcript_path: z.string().max(4096).optional(),
  session_id: text.optional(),
  agent_id: text.optional(),
  agent_type: text.optional(),
});
const tool = common.extend({ tool_name: z.string().min(1).max(256), tool_input: z.unknown() });
const payloads = {
  UserPromptSubmit: common.extend({ prompt: z.string() }),
  PreToolUse: tool,
  PostToolUse: tool.extend({ tool_response: z.unknown() }),
  SessionStart: common.extend({ source: text.optional() }),
};

export function parseClaudeHook(payload: unknown): ParsedHook {
  const raw = (typeof payload === 'object' && payload !== null ? payload : {}) as Record<string, unknown>;
  const name = typeof raw.hook_event_name === 'string' ? raw.hook_event_name : undefined;
  if (name === undefined || !Object.hasOwn(payloads, name)) return { ok: true, call: undefined, event: raw.hook_event_name };
  const parsed = payloads[name as keyof typeof payloads].safeParse(payload);
  if (!parsed.success) return unexpected(raw, name, describeIssues(parsed.error));
  const data = parsed.data as z.infer<typeof tool> & { prompt?: string; tool_response?: unknown };
  return { ok: true, call: callOf(name, data), caller: callerOf(data) };
}

function callOf(name: string, data: z.infer<typeof tool> & { prompt?: string; tool_response?: unknown }): HookCall {
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

/** A subagent by its id (the transcript's agentId), so its usage and its calls meet in one row. */
function callerOf(data: z.infer<typeof common>): Caller {
  return {
    cwd: data.cwd,
    ...(data.session_id !== undefined ? { session: data.session_id } : {}),
    agent: data.agent_id ?? data.agent_type ?? 'main',
    ...(data.transcript_path !== undefined ? { transcript: data.transcript_path } : {}),
  };
}

/** A payload of an unexpected shape, with what can still be told of its caller. */
export function unexpected(raw: Record<string, unknown>, event: string, problems: string): ParsedHook {
  const session = typeof raw.session_id === 'string' && raw.session_id.length <= 256 ? raw.session_id : undefined;
  const cwd = typeof raw.cwd === 'string' && raw.cwd.startsWith('/') && raw.cwd.length <= 4096 ? raw.cwd : undefined;
  const toolCall = claudeFacts.events[event] === 'tool';
  return { ok: false, event, toolCall, problems: problems.slice(0, 500), ...(session !== undefined ? { session } : {}), ...(cwd !== undefined ? { cwd } : {}) };
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
