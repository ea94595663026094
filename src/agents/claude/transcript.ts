// Claude Code's transcript lines: an assistant message's usage, once per message and
// request; a subagent's (a sidechain) is its own, and does not tell the main context's size.
// A user line whose turnOrigin is a wakeup or a task's notification is Claude Code's, not the user's.
import type { UsageEntry } from '../../events/commands.js';
import { MACHINE_KINDS } from './facts.js';

/** The transcript's `turnOrigin` of a user line that Claude Code, not the user, wrote. */
const MACHINE_ORIGINS: Readonly<Record<string, string>> = { scheduled: MACHINE_KINDS.loopWakeup, task_notification: MACHINE_KINDS.taskNotification };

type Usage = {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
};
type Entry = {
  type?: string;
  isSidechain?: boolean;
  agentId?: string;
  requestId?: string;
  message?: { id?: string; model?: string; usage?: Usage };
};

const num = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.min(Math.floor(n), Number.MAX_SAFE_INTEGER) : 0);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The text of a message's content: a string, or its text blocks. */
function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content.flatMap((block: unknown) => (isObject(block) && block.type === 'text' && typeof block.text === 'string' ? [block.text] : []));
  return texts.length > 0 ? texts.join('\n') : undefined;
}

/** A user line Claude Code made itself (its `turnOrigin` says so), with the kind it is recorded under. */
function machineTurn(value: Record<string, unknown>): { machine: { text: string; kind: string } } | undefined {
  const kind = typeof value.turnOrigin === 'string' && Object.hasOwn(MACHINE_ORIGINS, value.turnOrigin) ? MACHINE_ORIGINS[value.turnOrigin] : undefined;
  const text = isObject(value.message) ? contentText(value.message.content) : undefined;
  return kind !== undefined && text !== undefined ? { machine: { text, kind } } : undefined;
}

/**
 * What a line says: an assistant message's usage (and, for the main agent, its context use
 * and model), or a user turn Claude Code made itself; anything else says nothing.
 */
export function usageOf(value: unknown): { usage?: UsageEntry; context?: number; model?: string; machine?: { text: string; kind: string } } | undefined {
  if (isObject(value) && value.type === 'user') return machineTurn(value);
  if (!isObject(value) || value.type !== 'assistant') return undefined;
  const entry = value as Entry;
  const message = entry.message;
  if (!isObject(message) || !isObject(message.usage) || typeof message.id !== 'string') return undefined;
  if (message.model === '<synthetic>') return undefined;
  const u = message.usage;
  const sidechain = entry.isSidechain === true;
  const agent = sidechain ? (typeof entry.agentId === 'string' ? entry.agentId : 'subagent') : 'main';
  const usage: UsageEntry = {
    key: `${message.id}:${typeof entry.requestId === 'string' ? entry.requestId : ''}`,
    agent,
    ...(typeof message.model === 'string' ? { model: message.model } : {}),
    input: num(u.input_tokens),
    output: num(u.output_tokens),
    cacheCreation: num(u.cache_creation_input_tokens),
    cacheRead: num(u.cache_read_input_tokens),
  };
  if (sidechain) return { usage };
  return { usage, context: usage.input + usage.cacheCreation + usage.cacheRead, ...(typeof message.model === 'string' ? { model: message.model } : {}) };
}
