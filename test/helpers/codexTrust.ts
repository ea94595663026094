// Codex runs a user or project hook only if the user's config.toml holds its trusted hash
// (`codex exec` skips an untrusted hook without a word). This is the test harness's copy of
// that hash, proven by test/e2e/agentsHarness.test.ts against codex-cli 0.169.0; recap's own
// installer (src/agents/codex) has its own and must not import test code.
//
// Per handler: key `<abs hooks.json>:<event_snake>:<group index>:<handler index>`, hash
// `sha256:` + hex SHA-256 of the compact, key-sorted JSON of
// `{event_name, hooks: [{async, command, timeout, type, statusMessage?, additionalContextLimit?}], matcher?}`
// with `timeout` 600 when unset and no `matcher` when absent or for UserPromptSubmit and Stop
// (Codex ignores the matcher there). Verified: two handlers in a group, a second group,
// `statusMessage` and `additionalContextLimit` in camelCase, a matcher given to
// UserPromptSubmit left out. Not verified: `async: true`.
import { createHash } from 'node:crypto';

export type CodexHookHandler = {
  type: 'command';
  command: string;
  timeout?: number;
  async?: boolean;
  statusMessage?: string;
  additionalContextLimit?: number;
};
export type CodexHookGroup = { matcher?: string; hooks: CodexHookHandler[] };
/** The `hooks` object of a hooks.json: event name (PascalCase) to groups. */
export type CodexHooks = Record<string, CodexHookGroup[]>;

const NO_MATCHER = new Set(['UserPromptSubmit', 'Stop']);

/** `PreToolUse` → `pre_tool_use`. */
export const snakeEvent = (event: string): string => event.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/** JSON with every object's keys sorted and no whitespace, as Codex (serde_json) writes it. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** What Codex hashes for one handler. */
export function codexHookIdentity(event: string, group: CodexHookGroup, handler: CodexHookHandler): string {
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
    matcher: NO_MATCHER.has(event) ? undefined : group.matcher,
  });
}

export function codexHookHash(event: string, group: CodexHookGroup, handler: CodexHookHandler): string {
  return `sha256:${createHash('sha256')
    .update(codexHookIdentity(event, group, handler))
    .digest('hex')}`;
}

export function codexTrustKey(hooksFile: string, event: string, group: number, handler: number): string {
  return `${hooksFile}:${snakeEvent(event)}:${group}:${handler}`;
}

/** The `[hooks.state."<key>"] trusted_hash = "…"` tables that trust every handler of `hooks` in `hooksFile`. */
export function codexTrustToml(hooksFile: string, hooks: CodexHooks): string {
  const tables: string[] = [];
  for (const [event, groups] of Object.entries(hooks)) {
    for (const [g, group] of groups.entries()) {
      for (const [h, handler] of group.hooks.entries()) {
        // TOML basic strings take JSON's escapes for what a path may hold.
        tables.push(`[hooks.state.${JSON.stringify(codexTrustKey(hooksFile, event, g, h))}]\ntrusted_hash = "${codexHookHash(event, group, handler)}"\n`);
      }
    }
  }
  return tables.join('\n');
}
