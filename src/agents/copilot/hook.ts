// GitHub Copilot CLI's hook payloads (its PascalCase events, Claude Code's shape) read into
// recap's terms: a prompt the user submitted, a tool call, a session start. A subagent's
// prompt is the parent's instruction, not the user's: it is not counted; its tool calls are
// judged in the parent's session, as the subagent they are.
import { z } from 'zod';
import type { HookCall, ParsedHook } from '../adapter.js';
import { common, readPayload, sessionEnd, text, tool } from '../payload.js';
import { copilotFacts } from './facts.js';

const payloads = {
  UserPromptSubmit: common.extend({ prompt: z.string() }),
  PreToolUse: tool,
  SessionStart: common.extend({ source: text.optional() }),
  SessionEnd: sessionEnd,
};

type Payload = z.infer<typeof tool> & { prompt?: string; reason?: string };

/**
 * A subagent's payload carries its own session id (also its agent_id) and its parent's
 * (parent_agent_id): read in the parent's session, so its calls meet the job the main
 * thread's session is bound to, with the subagent named as the agent.
 */
function inParentSession(payload: unknown): unknown {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return payload;
  const { parent_agent_id: parent, ...rest } = payload as Record<string, unknown>;
  if (typeof parent !== 'string' || parent === '' || parent.length > 256) return payload;
  return { ...rest, session_id: parent, agent_id: typeof rest.agent_id === 'string' ? rest.agent_id : `subagent-of-${parent}` };
}

/** Whether the payload is a subagent's: it names an agent of its own or a parent. */
const isSubagent = (payload: unknown): boolean => {
  const p = payload as Record<string, unknown> | null;
  return typeof p?.agent_id === 'string' || typeof p?.parent_agent_id === 'string';
};

export function parseCopilotHook(payload: unknown): ParsedHook {
  const subagent = isSubagent(payload);
  return readPayload(inParentSession(payload), copilotFacts, payloads, (event: string, data: Payload) => callOf(event, data, subagent));
}

function callOf(event: string, data: Payload, subagent: boolean): HookCall | undefined {
  switch (copilotFacts.events[event]) {
    case 'prompt':
      return subagent ? undefined : { kind: 'prompt', text: data.prompt ?? '' };
    case 'tool':
      return { kind: 'tool', call: copilotFacts.toolCall(data.tool_name, data.tool_input) };
    case 'sessionEnd':
      return subagent ? undefined : { kind: 'sessionEnd', ...(data.reason !== undefined ? { reason: data.reason } : {}) };
    default:
      // A subagent's session is not a new session of the user's: no memory to hand over.
      return subagent ? undefined : { kind: 'sessionStart' };
  }
}
