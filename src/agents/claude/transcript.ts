// Claude Code's transcript lines: an assistant message's usage, once per message and
// request; a subagent's (a sidechain) is its own, and does not tell the main context's size.
import type { UsageEntry } from '../../events/commands.js';

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

/** What a line says, if it is an assistant message with usage; anything else says nothing. */
export function usageOf(value: unknown): { usage: UsageEntry; context?: number } | undefined {
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
  return { usage, ...(sidechain ? {} : { context: usage.input + usage.cacheCreation + usage.cacheRead }) };
}
