// Codex CLI as recap-hook sees it: its events, its tools in recap's terms, its answers.
// Verified against codex-cli 0.169.0 (shared/agents/codex.md, test/fixtures/agents/codex).
import { isAbsolute, join } from 'node:path';
import { field, patchPaths, questionsOf, type ToolCall, type ToolKind, memoryCall } from '../../events/toolCall.js';
import { isRecapMcpTool, type McpToolName } from '../../events/recapTools.js';
import { json, systemMessage, withSystemMessage, type AgentFacts } from '../facts.js';

/**
 * The tools as a hook names them. The model's shell tool is exec_command, but the hook sees
 * it as Bash with `{command}` only (not its workdir). apply_patch keeps its name, with the
 * patch as `command`; its paths are relative to the session's folder.
 */
const KINDS: Readonly<Record<string, ToolKind>> = {
  Bash: 'shell',
  apply_patch: 'patch',
  view_image: 'read',
  request_user_input: 'question',
  web_search: 'web',
};

const text = (input: unknown, key: string): string | undefined => {
  const value = field(input, key);
  return typeof value === 'string' ? value : undefined;
};

/**
 * The patch: in `command` (Codex 0.169.0), else in whatever string the input holds, so a
 * renamed field still has its files judged.
 */
function patchText(input: unknown): string {
  if (typeof input === 'string') return input;
  const command = text(input, 'command');
  if (command !== undefined) return command;
  const strings = input !== null && typeof input === 'object' ? Object.values(input).filter((v): v is string => typeof v === 'string') : [];
  return strings.join('\n');
}

/**
 * The files of a patch inside a shell command. Codex 0.169.0 applies `apply_patch <<'EOF'`
 * run through exec_command itself (after `cd DIR &&` too), outside the shell, so the shell
 * rules never see those files: any patch header in a command is read as a patch's, from the
 * session's folder and from each folder the command cds into.
 */
function shellPatchPaths(command: string): string[] {
  const paths = patchPaths(command);
  if (paths.length === 0) return [];
  const dirs = [...command.matchAll(/(?:^|[\s;&|(])cd\s+(?:'([^']*)'|"([^"]*)"|([^\s;&|)]+))/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
  return paths.flatMap((path) => [path, ...(isAbsolute(path) || path.startsWith('~') ? [] : dirs.map((dir) => join(dir, path)))]);
}

/** How Codex names an MCP server's tool: mcp__<server>__<tool> (agents/codex.md). */
export const codexMcpToolName: McpToolName = (server, tool) => `mcp__${server}__${tool}`;

export function codexToolCall(name: string, input: unknown): ToolCall {
  if (isRecapMcpTool(name, codexMcpToolName)) return memoryCall(name, input);
  const command = text(input, 'command') ?? text(input, 'cmd');
  // A shell call without a command line to read is judged as an unknown tool: every path in it.
  const known = KINDS[name] === 'shell' && command === undefined ? undefined : KINDS[name];
  const kind = known ?? (name.startsWith('mcp__') ? 'mcp' : 'other');
  const call: ToolCall = { name, kind, paths: [], input };
  switch (kind) {
    case 'shell':
      call.command = command!;
      call.paths = shellPatchPaths(command!);
      break;
    case 'patch':
      call.paths = patchPaths(patchText(input));
      break;
    case 'read': {
      const path = text(input, 'path');
      if (path !== undefined && path !== '') call.paths = [path];
      break;
    }
    case 'question': {
      call.questions = questionsOf(input);
      break;
    }
    default:
      break;
  }
  return call;
}

/**
 * Where Codex keeps its user config: CODEX_HOME, else ~/.codex. Both are listed when
 * CODEX_HOME is set: a session started without it reads ~/.codex. (The daemon adds each
 * file's real path.)
 */
const codexHomes = (env: NodeJS.ProcessEnv, home: string): string[] => [...new Set([...(env.CODEX_HOME ? [env.CODEX_HOME] : []), join(home, '.codex')])];

/**
 * The model reads `Command blocked by PreToolUse hook: <reason>. Command: <command>`: Codex
 * trims the reason and adds the period, so one at its end is left off.
 */
function denyReason(reason: string): string {
  const trimmed = reason.trim().replace(/(?<!\.)\.$/, '');
  return trimmed === '' ? 'recap: denied' : trimmed;
}

export const codexFacts: AgentFacts = {
  name: 'codex',
  title: 'Codex CLI',
  // No PostToolUse: Codex has no question tool whose answer a hook could record.
  events: { UserPromptSubmit: 'prompt', PreToolUse: 'tool', SessionStart: 'sessionStart', SessionEnd: 'sessionEnd' },
  // The name the model calls its shell by (the hook sees Bash): the messages tell the model
  // what to run, and exec_command is the tool in its list.
  shellTool: 'exec_command',
  toolCall: codexToolCall,
  mcpToolName: codexMcpToolName,
  deny: (reason) => json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: denyReason(reason) } }),
  // systemMessage: Codex shows it to the user (the TUI; `codex exec` prints nothing) and lets
  // the call go on. An empty answer is an allow.
  notice: systemMessage,
  withNotice: withSystemMessage,
  context: (event, context) => json({ hookSpecificOutput: { hookEventName: event === 'prompt' ? 'UserPromptSubmit' : 'SessionStart', additionalContext: context } }),
  // Over 2,500 estimated tokens (UTF-8 bytes / 4) the context is saved to a file and the model
  // gets a head-and-tail preview.
  contextLimit: { max: 10_000, unit: 'bytes' },
  // Set by Codex 0.169.0 in every exec_command (CODEX_THREAD_ID for long before).
  shellVariables: ['CODEX_THREAD_ID', 'CODEX_SESSION_ID', 'CODEX_TOOL_CALL_ID'],
  // The hook's session_id: a recap command run where the shell can reach the daemon (no
  // sandbox) resolves the session's job.
  sessionVariable: 'CODEX_SESSION_ID',
  // hooks.json holds recap's hooks; config.toml their trust, `[features] hooks` and the
  // sandbox's settings; .env is loaded into Codex's environment at start, over the user's own
  // variables, and so into every hook's: NODE_OPTIONS, BASH_ENV or RECAP_SOCKET there would
  // answer for recap-hook or send it to another daemon.
  // The system layer in /etc/codex is "managed": read with no trust asked (an agent running as
  // root, in a container, could turn hooks off there); requirements.toml constrains the rest.
  settingsFiles: (env, home) => [
    ...codexHomes(env, home).flatMap((dir) => ['hooks.json', 'config.toml', '.env', 'requirements.toml', 'managed_config.toml'].map((name) => join(dir, name))),
    ...['hooks.json', 'config.toml', 'requirements.toml', 'managed_config.toml'].map((name) => join('/etc/codex', name)),
  ],
  projectSettingsFiles: (project) => [join(project, '.codex', 'hooks.json'), join(project, '.codex', 'config.toml')],
  settingsNames: [
    {
      path: /\/(?:\.codex|etc\/codex)\/(?:hooks\.json|config\.toml|\.env|requirements\.toml|managed_config\.toml)$/,
      mentioned: [/\.codex\b|\/etc\/codex\b/, /hooks\.json|config\.toml|\.env\b|requirements\.toml|managed_config\.toml/],
      what: "Codex's hooks, config and environment",
    },
    // `codex mcp add|remove`: its own commands write config.toml's MCP servers and name no file.
    { path: /(?!)/, mentioned: [/\bcodex\b/, /\bmcp\b/], what: "Codex's MCP servers, recap's among them" },
  ],
  // codex-cli 0.169.0's switches (codex exec --help): hooks are a feature, and recap's trust
  // entries live in $CODEX_HOME/config.toml, which --ignore-user-config skips. A profile layers
  // $CODEX_HOME/<name>.config.toml, a file recap does not protect, so none passes.
  launch: {
    title: 'Codex',
    programs: ['codex'],
    packages: ['@openai/codex'],
    switches: [
      { options: ['--disable'], takesValue: true, keeps: (feature) => !/hook/i.test(feature), does: 'the hooks feature switched off' },
      {
        options: ['-c', '--config'],
        takesValue: true,
        keeps: (raw) => [raw, tomlUnescaped(raw)].every((override) => !/^\s*["']?(?:features|hooks|profiles?)\b/.test(override) && !/hook/i.test(override)),
        does: 'hooks, features or profiles overridden',
      },
      { options: ['-p', '--profile'], takesValue: true, does: 'a profile whose config can switch hooks off' },
      { options: ['--ignore-user-config'], does: "the user config, and recap's hook trust in it, skipped" },
    ],
    variables: /^(?:HOME|CODEX_HOME)$/,
  },
};

/** A TOML override with its \uXXXX and \UXXXXXXXX escapes decoded (`"ho\u006fks"` is hooks to Codex). */
function tomlUnescaped(text: string): string {
  return text.replace(/\\(?:u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8}))/g, (escape, short: string | undefined, long: string | undefined) => {
    const code = parseInt(short ?? long!, 16);
    return code <= 0x10ffff ? String.fromCodePoint(code) : escape;
  });
}
