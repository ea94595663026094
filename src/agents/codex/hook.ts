// Codex's hook payloads read into recap's terms: a prompt, a tool call, a session start.
// Every Codex event carries session_id, cwd and transcript_path (null with --ephemeral);
// a subagent's adds agent_id and agent_type under its parent's session_id.
import { z } from 'zod';
import type { HookCall, ParsedHook } from '../adapter.js';
import { common, readPayload, sessionEnd, text, tool } from '../payload.js';
import { codexFacts } from './facts.js';

const payloads = {
  UserPromptSubmit: common.extend({ prompt: z.string() }),
  PreToolUse: tool,
  SessionStart: common.extend({ source: text.optional() }),
  SessionEnd: sessionEnd,
};
type Payload = z.infer<typeof tool> & { prompt?: string; reason?: string };

export function parseCodexHook(payload: unknown): ParsedHook {
  return readPayload(payload, codexFacts, payloads, callOf);
}

function callOf(name: string, data: Payload): HookCall {
  switch (codexFacts.events[name]) {
    case 'prompt':
      // Codex fires UserPromptSubmit for what the user typed only (not for a Stop hook's continuation).
      return { kind: 'prompt', text: data.prompt ?? '' };
    case 'tool':
      return { kind: 'tool', call: codexFacts.toolCall(data.tool_name, data.tool_input) };
    case 'sessionEnd':
      return { kind: 'sessionEnd', ...(data.reason !== undefined ? { reason: data.reason } : {}) };
    default:
      return { kind: 'sessionStart' };
  }
}
