// Codex's hook payloads read into recap's terms: a prompt, a tool call, a session start.
// Every Codex event carries session_id, cwd and transcript_path (null with --ephemeral);
// a subagent's adds agent_id and agent_type under its parent's session_id.
import { z } from 'zod';
import { describeIssues } from '../../daemon/protocol.js';
import type { Caller, HookCall, ParsedHook } from '../adapter.js';
import { codexFacts } from './facts.js';

const text = z.string().max(256);

const common = z.object({
  hook_event_name: z.string().max(64),
  cwd: z.string().startsWith('/').max(4096),
  transcript_path: z.string().max(4096).nullable().optional(),
  session_id: text.optional(),
  agent_id: text.optional(),
  agent_type: text.optional(),
});
const tool = common.extend({ tool_name: z.string().min(1).max(256), tool_input: z.unknown() });
const payloads = {
  UserPromptSubmit: common.extend({ prompt: z.string() }),
  PreToolUse: tool,
  SessionStart: common.extend({ source: text.optional() }),
};
type Payload = z.infer<typeof tool> & { prompt?: string };

export function parseCodexHook(payload: unknown): ParsedHook {
  const raw = (typeof payload === 'object' && payload !== null ? payload : {}) as Record<string, unknown>;
  const name = typeof raw.hook_event_name === 'string' ? raw.hook_event_name : undefined;
  if (name === undefined || !Object.hasOwn(payloads, name)) return { ok: true, call: undefined, event: raw.hook_event_name };
  const parsed = payloads[name as keyof typeof payloads].safeParse(payload);
  if (!parsed.success) return unexpected(raw, name, describeIssues(parsed.error));
  const data = parsed.data as Payload;
  return { ok: true, call: callOf(name, data), caller: callerOf(data) };
}

function callOf(name: string, data: Payload): HookCall {
  switch (codexFacts.events[name]) {
    case 'prompt':
      // Codex fires UserPromptSubmit for what the user typed only (not for a Stop hook's continuation).
      return { kind: 'prompt', text: data.prompt ?? '' };
    case 'tool':
      return { kind: 'tool', call: codexFacts.toolCall(data.tool_name, data.tool_input) };
    default:
      return { kind: 'sessionStart' };
  }
}

function callerOf(data: z.infer<typeof common>): Caller {
  return {
    cwd: data.cwd,
    ...(data.session_id !== undefined ? { session: data.session_id } : {}),
    agent: data.agent_id ?? data.agent_type ?? 'main',
    ...(typeof data.transcript_path === 'string' ? { transcript: data.transcript_path } : {}),
  };
}

/** A payload of an unexpected shape, with what can still be told of its caller. */
function unexpected(raw: Record<string, unknown>, event: string, problems: string): ParsedHook {
  const session = typeof raw.session_id === 'string' && raw.session_id.length <= 256 ? raw.session_id : undefined;
  const cwd = typeof raw.cwd === 'string' && raw.cwd.startsWith('/') && raw.cwd.length <= 4096 ? raw.cwd : undefined;
  const toolCall = codexFacts.events[event] === 'tool';
  return { ok: false, event, toolCall, problems: problems.slice(0, 500), ...(session !== undefined ? { session } : {}), ...(cwd !== undefined ? { cwd } : {}) };
}
