// Codex runs a user or project hook only when the user's config.toml holds its hash
// (`codex exec` skips an untrusted hook without a word). A handler's trust entry is
// `[hooks.state."<abs hooks file>:<event_snake>:<group>:<handler>"] trusted_hash = "sha256:…"`,
// the hash over the compact, key-sorted JSON of
// `{event_name, hooks: [{async, command, timeout, type, statusMessage?, additionalContextLimit?}], matcher?}`
// (timeout 600 when unset; no matcher when absent, nor for UserPromptSubmit and Stop).
// Proven against codex-cli 0.169.0 (the worked example is in test/unit/codexTrust.test.ts).
import { createHash } from 'node:crypto';

export type CodexHandler = {
  type: 'command';
  command: string;
  timeout?: number;
  async?: boolean;
  statusMessage?: string;
  additionalContextLimit?: number;
};
export type CodexGroup = { matcher?: string; hooks: CodexHandler[] };

/** Codex ignores a matcher on these events, and leaves it out of the hash. */
const NO_MATCHER = new Set(['UserPromptSubmit', 'Stop']);

/** `PreToolUse` → `pre_tool_use`. */
export const snakeEvent = (event: string): string => event.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/** JSON with every object's keys sorted and no whitespace, as serde_json writes a sorted map. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** What Codex hashes for one handler of a group. */
export function handlerIdentity(event: string, matcher: string | undefined, handler: CodexHandler): string {
  return canonicalJson({
    event_name: snakeEvent(event),
    hooks: [
      {
        async: handler.async ?? false,
        command: handler.command,
        timeout: handler.timeout ?? 600,
        type: handler.type,
        statusMessage: handler.statusMessage,
        additionalContextLimit: handler.additionalContextLimit,
      },
    ],
    matcher: NO_MATCHER.has(event) ? undefined : matcher,
  });
}

export function handlerHash(event: string, matcher: string | undefined, handler: CodexHandler): string {
  return `sha256:${createHash('sha256')
    .update(handlerIdentity(event, matcher, handler))
    .digest('hex')}`;
}

/** The hooks.state key of a handler: which file, which event, which group, which handler. */
export function trustKey(hooksFile: string, event: string, group: number, handler: number): string {
  return `${hooksFile}:${snakeEvent(event)}:${group}:${handler}`;
}
