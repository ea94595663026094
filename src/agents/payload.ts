// What every agent's hook payload shares (the event's name, the folder, the session, the
// transcript, a subagent's id, a tool's name and input) and the one way they are read: by
// the schema of the payload's event, each agent's hook.ts giving its schemas and what each
// event means.
import { z } from 'zod';
import { describeIssues } from '../common/zodIssues.js';
import type { Caller, HookCall, ParsedHook } from './adapter.js';
import type { AgentFacts } from './facts.js';

export const text = z.string().max(256);

/** The fields every agent sends with every event (Codex's transcript_path is null with --ephemeral). */
export const common = z.object({
  hook_event_name: z.string().max(64),
  cwd: z.string().startsWith('/').max(4096),
  transcript_path: z.string().max(4096).nullish(),
  session_id: text.optional(),
  agent_id: text.optional(),
  agent_type: text.optional(),
  /** Gemini CLI and Qwen Code send it with every event. */
  timestamp: z.string().max(64).optional(),
});
/** A session's end (SessionEnd): why it ended, where the agent says (exit, clear, other, ...). */
export const sessionEnd = common.extend({ reason: text.optional() });

export const tool = common.extend({ tool_name: z.string().min(1).max(256), tool_input: z.unknown() });

type Common = z.infer<typeof common>;

/**
 * A payload read by its event's schema; `callOf` says what the event is about, or undefined
 * for one the agent sends that recap passes over (Qwen Code's prompt-less UserPromptSubmit).
 * `P` holds every event's fields as optional but the common ones: `callOf` reads, for an
 * event, only the fields that event's schema has checked.
 */
export function readPayload<P extends Common>(
  payload: unknown,
  facts: AgentFacts,
  schemas: Readonly<Record<string, z.ZodType<Common>>>,
  callOf: (event: string, data: P) => HookCall | undefined,
): ParsedHook {
  const raw = (typeof payload === 'object' && payload !== null ? payload : {}) as Record<string, unknown>;
  const event = typeof raw.hook_event_name === 'string' ? raw.hook_event_name : undefined;
  const schema = event !== undefined && Object.hasOwn(schemas, event) ? schemas[event] : undefined;
  if (event === undefined || schema === undefined) return { ok: true, call: undefined, event: raw.hook_event_name };
  const parsed = schema.safeParse(payload);
  if (!parsed.success) return unexpected(raw, event, describeIssues(parsed.error), facts);
  const call = callOf(event, parsed.data as P);
  return call === undefined ? { ok: true, call: undefined, event } : { ok: true, call, caller: callerOf(parsed.data) };
}

/** A subagent by its id (else its type), so its usage and its calls meet in one row; the main agent otherwise. */
function callerOf(data: Common): Caller {
  return {
    cwd: data.cwd,
    ...(data.session_id !== undefined ? { session: data.session_id } : {}),
    agent: data.agent_id ?? data.agent_type ?? 'main',
    ...(typeof data.transcript_path === 'string' && data.transcript_path !== '' ? { transcript: data.transcript_path } : {}),
  };
}

/** A payload of an unexpected shape, with what can still be told of its caller. */
function unexpected(raw: Record<string, unknown>, event: string, problems: string, facts: AgentFacts): ParsedHook {
  const session = typeof raw.session_id === 'string' && raw.session_id.length <= 256 ? raw.session_id : undefined;
  const cwd = typeof raw.cwd === 'string' && raw.cwd.startsWith('/') && raw.cwd.length <= 4096 ? raw.cwd : undefined;
  const toolCall = facts.events[event] === 'tool';
  return { ok: false, event, toolCall, problems: problems.slice(0, 500), ...(session !== undefined ? { session } : {}), ...(cwd !== undefined ? { cwd } : {}) };
}
