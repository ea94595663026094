// A stand-in for recap-hook in the agent harness: a bash script that saves each payload an
// agent hands a hook, answers `{}` (no opinion), and denies a tool call whose payload holds a
// marker, in the agent's own deny format. Bash, not Node, so a hook costs a few milliseconds.
// Each call writes its own file: hooks of parallel calls run concurrently, and a file per
// call cannot interleave. The saved payloads become test/fixtures/agents/<agent>/*.json.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AgentDirs } from './agentSandbox.js';

export type HookRecord = {
  /** The event name the hook was configured with (its first argument). */
  event: string;
  /** Microseconds since the epoch when the hook started. */
  t: number;
  /** The hook process's `Seccomp:` mode (0: none; Codex's sandbox is 2) and mount namespace. */
  seccomp: string;
  mntNs: string;
  payload: Record<string, unknown>;
};

export const FIXTURES = resolve(import.meta.dirname, '..', 'fixtures', 'agents');
/** Where the sandbox's root stands in a fixture. */
export const FIXTURE_ROOT = '/tmp/FIXTURE';

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * Writes the recorder into `dirs.hooks` and returns the command for `event`. `gate` is the
 * event that may deny (PreToolUse, BeforeTool); `deny` what it prints when the payload holds `marker`.
 */
export function recorderCommand(dirs: AgentDirs, event: string, gate: { event: string; marker: string; deny: unknown }): string {
  if (!/^\w+$/.test(event)) throw new Error(`not an event name: ${event}`);
  const script = join(dirs.hooks, 'record-hook.sh');
  if (!existsSync(script)) {
    mkdirSync(join(dirs.hooks, 'records'), { recursive: true });
    writeFileSync(
      script,
      `#!/bin/bash
# Written by test/helpers/hookRecorder.ts: saves the payload, allows, or denies a marked call.
payload=$(cat)
t=$(date +%s%6N)
seccomp=$(sed -n 's/^Seccomp:[[:space:]]*//p' /proc/self/status 2>/dev/null)
mnt=$(readlink /proc/self/ns/mnt 2>/dev/null)
# Raw newlines in JSON can only be whitespace between tokens: deleting them keeps it valid.
printf '{"event":"%s","t":%s,"seccomp":"%s","mntNs":"%s","payload":%s}\\n' "$1" "$t" "$seccomp" "$mnt" "$(printf '%s' "\${payload:-null}" | tr -d '\\n\\r')" > ${quote(join(dirs.hooks, 'records'))}/"$t-$$.json"
if [ "$1" = ${quote(gate.event)} ] && [[ $payload == *${quote(gate.marker)}* ]]; then
  printf '%s' ${quote(JSON.stringify(gate.deny))}
else
  printf '{}'
fi
`,
    );
    chmodSync(script, 0o755);
  }
  return `${quote(script)} ${event}`;
}

/** Every hook call so far, in the order they started. */
export function hookRecords(dirs: AgentDirs): HookRecord[] {
  const folder = join(dirs.hooks, 'records');
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .sort()
    .map((name) => JSON.parse(readFileSync(join(folder, name), 'utf8')) as HookRecord);
}

/** A payload as a fixture: the sandbox's paths replaced by stable ones, pretty-printed. */
export function fixtureText(payload: unknown, dirs: AgentDirs): string {
  // Qwen Code names a project's folder by its path with every other character as "-".
  const dashed = (path: string) => path.replace(/[^a-zA-Z0-9]/g, '-');
  return `${JSON.stringify(payload, null, 2).replaceAll(dirs.root, FIXTURE_ROOT).replaceAll(dashed(dirs.root), dashed(FIXTURE_ROOT))}\n`;
}

/** `Event-tool_name` (or `Event`); the first payload of each name is the fixture. */
export const defaultFixtureName = (r: HookRecord): string => (typeof r.payload.tool_name === 'string' ? `${r.event}-${r.payload.tool_name}` : r.event);

/** Every key path of a value (`tool_input.command`, `tool_response.returnDisplay.fileDiff`). */
export function keyPaths(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, inner]) => [`${prefix}${key}`, ...keyPaths(inner, `${prefix}${key}.`)]);
}

/**
 * The fixtures of one agent's run: with RECAP_UPDATE_AGENT_FIXTURES=1 they are (re)written
 * from the real payloads; otherwise each must exist and hold exactly the keys the agent sends
 * now, so a new agent version that changes its payloads fails here first.
 */
export function fixturesOf(agent: string, records: HookRecord[], dirs: AgentDirs, name: (r: HookRecord) => string | undefined = defaultFixtureName) {
  const chosen = new Map<string, HookRecord>();
  for (const record of records) {
    const key = name(record);
    if (key !== undefined && !chosen.has(key)) chosen.set(key, record);
  }
  const folder = join(FIXTURES, agent);
  const update = process.env.RECAP_UPDATE_AGENT_FIXTURES === '1';
  if (update) mkdirSync(folder, { recursive: true });
  return [...chosen].map(([key, record]) => {
    const file = join(folder, `${key}.json`);
    if (update) writeFileSync(file, fixtureText(record.payload, dirs));
    const saved = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as unknown) : undefined;
    return { name: key, file, live: keyPaths(record.payload).sort(), saved: saved === undefined ? undefined : keyPaths(saved).sort() };
  });
}
