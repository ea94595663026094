// What recap's opencode plugin forwards, read into recap's terms: a user's message (a
// subagent's prompt is passed over), a tool call, the memory a session's system prompt asks for.
// The plugin sends the root session as session_id and a subagent's own session as agent_id,
// so a subagent's calls land in the job of the session that started it.
import { z } from 'zod';
import type { HookCall, ParsedHook } from '../adapter.js';
import { common, readPayload, text, tool } from '../payload.js';
import { EVENTS, opencodeFacts } from './facts.js';

const payloads = {
  // The text parts of the message that are not synthetic (the user's own words).
  [EVENTS.prompt]: common.extend({ prompt: z.string() }),
  [EVENTS.tool]: tool.extend({ call_id: text.optional() }),
  [EVENTS.memory]: common,
};

type Payload = z.infer<typeof tool> & { prompt?: string };

export function parseOpencodeHook(payload: unknown): ParsedHook {
  return readPayload(payload, opencodeFacts, payloads, callOf);
}

function callOf(name: string, data: Payload): HookCall | undefined {
  switch (opencodeFacts.events[name]) {
    case 'prompt':
      // A subagent's prompt is written by the model that called the task tool, not the user;
      // a message of attachments alone has no words to count.
      return data.agent_id === undefined && data.prompt?.trim() ? { kind: 'prompt', text: data.prompt } : undefined;
    case 'tool':
      return { kind: 'tool', call: opencodeFacts.toolCall(data.tool_name, data.tool_input) };
    default:
      return { kind: 'sessionStart' };
  }
}
