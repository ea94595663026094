// Claude Code's hook payloads read into recap's terms: a prompt, a tool call, a question
// answered (AskUserQuestion's PostToolUse), a session start, a compaction about to begin
// (PreCompact), and the turns Claude Code makes itself (a task's notification, a `/loop`
// wakeup, its compaction summary). Claude Code does not send UserPromptSubmit's `source`: a
// notification is told by its text, and a wakeup by repeating what the session's `/loop`
// asked for (remembered here, per session), or later by the transcript's turnOrigin
// (transcript.ts).
import { z } from 'zod';
import type { HookCall, ParsedHook } from '../adapter.js';
import { common, readPayload, sessionEnd, text, tool } from '../payload.js';
import { claudeFacts, MACHINE_KINDS } from './facts.js';

const payloads = {
  UserPromptSubmit: common.extend({ prompt: z.string() }),
  PreToolUse: tool,
  PostToolUse: tool.extend({ tool_response: z.unknown() }),
  SessionStart: common.extend({ source: text.optional() }),
  SessionEnd: sessionEnd,
  // custom_instructions (what follows /compact, null for auto) is not read: recap adds its own.
  PreCompact: common.extend({ trigger: text.nullish() }),
  PostCompact: common.extend({ trigger: text.optional(), compact_summary: z.string() }),
};
type Payload = z.infer<typeof tool> & { prompt?: string; tool_response?: unknown; compact_summary?: string; reason?: string };

export function parseClaudeHook(payload: unknown): ParsedHook {
  return readPayload(payload, claudeFacts, payloads, callOf);
}

function callOf(name: string, data: Payload): HookCall {
  switch (claudeFacts.events[name]) {
    case 'prompt':
      return promptCall(data.prompt ?? '', data.session_id);
    case 'compacting':
      return { kind: 'compacting' };
    case 'compaction':
      return { kind: 'machine', as: MACHINE_KINDS.compactSummary, text: data.compact_summary ?? '' };
    case 'tool':
      return { kind: 'tool', call: claudeFacts.toolCall(data.tool_name, data.tool_input) };
    case 'toolUsed':
      return data.tool_name === 'AskUserQuestion' ? { kind: 'toolUsed', qa: questionsAndAnswers(data.tool_input, data.tool_response) } : { kind: 'toolUsed' };
    case 'sessionEnd':
      return { kind: 'sessionEnd', ...(data.reason !== undefined ? { reason: data.reason } : {}) };
    default:
      return { kind: 'sessionStart' };
  }
}

/** What each session's `/loop` commands repeat, newest sessions kept. */
const loops = new Map<string, Set<string>>();
const MAX_LOOP_SESSIONS = 1000;

/** `/loop [interval] text` as typed: the text its wakeups resubmit, with and without a leading interval. */
function loopTexts(prompt: string): string[] {
  const match = /^\/loop\s+([\s\S]+)$/.exec(prompt.trim());
  if (!match) return [];
  const rest = match[1]!.trim();
  const withoutInterval = /^\d+\s*[smhd]\w*\s+([\s\S]+)$/.exec(rest)?.[1];
  return withoutInterval === undefined ? [rest] : [rest, withoutInterval.trim()];
}

function promptCall(prompt: string, session: string | undefined): HookCall {
  if (prompt.trimStart().startsWith('<task-notification>')) return { kind: 'machine', as: MACHINE_KINDS.taskNotification, text: prompt };
  if (session === undefined) return { kind: 'prompt', text: prompt };
  if (loops.get(session)?.has(prompt.trim())) return { kind: 'machine', as: MACHINE_KINDS.loopWakeup, text: prompt };
  const texts = loopTexts(prompt);
  if (texts.length > 0) {
    if (!loops.has(session) && loops.size >= MAX_LOOP_SESSIONS) loops.delete(loops.keys().next().value!);
    loops.set(session, new Set([...(loops.get(session) ?? []), ...texts]));
  }
  return { kind: 'prompt', text: prompt };
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
