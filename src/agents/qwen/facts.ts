// Qwen Code as recap-hook sees it: its events, its tools in recap's terms, its answers.
// Verified against Qwen Code 0.24.4 (shared/agents/qwen.md, test/fixtures/agents/qwen).
import { isAbsolute, join } from 'node:path';
import { field, strings, questionsOf, type ToolCall, type ToolKind, memoryCall } from '../../events/toolCall.js';
import { isRecapMcpTool, type McpToolName } from '../../events/recapTools.js';
import { json, NOTHING, systemMessage, withSystemMessage, type AgentFacts, type HookAnswer } from '../facts.js';

const KINDS: Readonly<Record<string, ToolKind>> = {
  run_shell_command: 'shell',
  // A shell command run in the background, its output streamed back: a shell all the same.
  monitor: 'shell',
  read_file: 'read',
  list_directory: 'read',
  zoom_image: 'read',
  lsp: 'read',
  glob: 'search',
  grep_search: 'search',
  write_file: 'write',
  edit: 'edit',
  notebook_edit: 'edit',
  ask_user_question: 'question',
  web_fetch: 'web',
  web_search: 'web',
  read_mcp_resource: 'mcp',
};

/** Input fields that hold a path (lsp names its file `filePath`). */
const PATH_FIELDS = ['file_path', 'notebook_path', 'path', 'filePath'];

/** The deferred-tool bridge: `tool_call {name, arguments}` runs the tool it names. */
const BRIDGE = 'tool_call';

/** How Qwen Code names an MCP server's tool: mcp__<server>__<tool> (agents/qwen.md). */
export const qwenMcpToolName: McpToolName = (server, tool) => `mcp__${server}__${tool}`;

export function qwenToolCall(name: string, input: unknown): ToolCall {
  if (isRecapMcpTool(name, qwenMcpToolName)) return memoryCall(name, input);
  // Qwen Code shows hooks the bridged tool's own name; a bridge call seen whole is read as that tool.
  const inner = field(input, 'name');
  if (name === BRIDGE && typeof inner === 'string' && inner !== BRIDGE) return qwenToolCall(inner, field(input, 'arguments'));
  const kind = KINDS[name] ?? (name.startsWith('mcp__') ? 'mcp' : 'other');
  const call: ToolCall = { name, kind, paths: strings(input, PATH_FIELDS), input };
  if (kind === 'shell') {
    const command = field(input, 'command');
    if (typeof command === 'string') call.command = command;
    const directory = field(input, 'directory');
    if (typeof directory === 'string' && directory !== '') call.dir = directory;
  }
  // glob's pattern, and grep_search's file filter, are globs under `path` (else the folder).
  const glob = name === 'glob' ? field(input, 'pattern') : name === 'grep_search' ? field(input, 'glob') : undefined;
  if (typeof glob === 'string' && glob !== '') call.glob = glob;
  if (kind === 'question') {
    call.questions = questionsOf(input);
  }
  return call;
}

/**
 * The most text recap hands Qwen Code in one answer. Qwen Code ignores an answer whose stdout
 * passes 1 MiB (the call would run: a cut deny fails open) and cuts a reason over 200,000
 * characters. JSON spends at most 6 bytes on a UTF-16 unit, so 100,000 units stay under 620 KB.
 */
export const QWEN_TEXT_MAX = 100_000;

/** The text, cut to QWEN_TEXT_MAX with a line saying so; whole when it fits. */
export function fitted(text: string): string {
  if (text.length <= QWEN_TEXT_MAX) return text;
  let kept = QWEN_TEXT_MAX - 200;
  // Never half a surrogate pair.
  const last = text.charCodeAt(kept - 1);
  if (last >= 0xd800 && last <= 0xdbff) kept -= 1;
  return `${text.slice(0, kept)}\n[recap cut the last ${text.length - kept} characters to fit Qwen Code's hook output limit]`;
}

/**
 * Qwen Code shows the model a hook's context with `<` and `>` as `&lt;` and `&gt;` (and
 * leaves `&` alone): the here-document of the submit command must still be typed with the
 * real characters. The note itself holds neither sign, so it reads as written.
 */
export const ESCAPED_NOTE = '(Qwen Code shows the less-than and greater-than signs in this context as &lt; and &gt;: in a command, type the signs themselves.)';

/**
 * What Qwen Code keeps of a PreCompact hook's instructions. Qwen Code 0.24.4
 * (@qwen-code/qwen-code, chunks/chunk-DPEB6S2R.js) reads PreCompact's
 * `hookSpecificOutput.additionalContext` in ChatCompressionService.compress (lines 33190-33206),
 * trims it and keeps its first MAX_HOOK_INSTRUCTIONS_CHARS = 4,000 characters (line 33034), and
 * buildCompressionSystemPrompt (lines 33070-33081) appends it to the compression request's system
 * prompt under "Additional Instructions:", after the user's own `/compress` text. The 4,000 are
 * counted after DefaultHookOutput.getAdditionalContext (chunks/chunk-QA5TENCT.js, lines 240-246)
 * has written each `<` and `>` as `&lt;` and `&gt;`. Plain stdout is context only on
 * SessionStart, UserPromptSubmit and UserPromptExpansion (PLAIN_TEXT_CONTEXT_EVENTS, line 145949);
 * on PreCompact it is a message for the user. Neither `decision` nor `continue` is read there.
 */
export const QWEN_STEER_MAX = 4000;

/** The text's length once Qwen Code has written each `<` and `>` as four characters. */
const escapedLength = (text: string) => text.length + 3 * (text.match(/[<>]/g)?.length ?? 0);

/**
 * The instructions within QWEN_STEER_MAX as Qwen Code counts them: whole when they fit (recap's
 * renderer keeps 4,000 characters, so they fit unless they hold `<` or `>`), else whole lines
 * left out from the end, with a line saying so, rather than Qwen Code's cut in mid-line.
 */
export function steerFitted(instructions: string): string {
  const lines = instructions.trim().split('\n');
  let kept = lines.length;
  const left = () => lines.slice(kept).filter((line) => line.trim() !== '').length;
  const render = () => (kept === lines.length ? lines.join('\n') : [...lines.slice(0, kept), `(recap left out ${left()} more lines to fit Qwen Code's limit)`].join('\n'));
  const fits = () => escapedLength(render()) <= QWEN_STEER_MAX;
  // A group's title or a blank line is not left standing at the end.
  const dangling = () => kept < lines.length && /^$|:$/.test(lines[kept - 1]!);
  while (kept > 1 && (!fits() || dangling())) kept -= 1;
  const text = render();
  if (fits()) return text;
  // One line longer than the limit: cut by characters, never half a pair.
  let used = 0;
  let end = 0;
  for (const char of text) {
    used += /[<>]/.test(char) ? 4 : char.length;
    if (used > QWEN_STEER_MAX) break;
    end += char.length;
  }
  return text.slice(0, end);
}

/** PreCompact's answer: the instructions as additionalContext, never a decision; nothing when there are none. */
function steerCompaction(instructions: string): HookAnswer {
  const text = steerFitted(instructions);
  return text === '' ? NOTHING : json({ hookSpecificOutput: { hookEventName: 'PreCompact', additionalContext: text } });
}

/**
 * The settings folders Qwen Code may read: ~/.qwen, and QWEN_HOME when it is set (it replaces
 * ~/.qwen). A relative QWEN_HOME is taken from the folder Qwen Code starts in, unknown here.
 */
export function qwenDirs(env: NodeJS.ProcessEnv, home: string): string[] {
  const custom = env.QWEN_HOME;
  const dirs = [join(home, '.qwen')];
  if (custom === '~') dirs.push(home);
  else if (custom?.startsWith('~/')) dirs.push(join(home, custom.slice(2)));
  else if (custom !== undefined && isAbsolute(custom)) dirs.push(custom);
  return [...new Set(dirs)];
}

/** The system settings layer and its defaults beside it, as Qwen Code finds them on Linux. */
export function systemSettingsFiles(env: NodeJS.ProcessEnv): string[] {
  const settings = env.QWEN_CODE_SYSTEM_SETTINGS_PATH || '/etc/qwen-code/settings.json';
  const defaults = env.QWEN_CODE_SYSTEM_DEFAULTS_PATH || join(settings, '..', 'system-defaults.json');
  return [settings, defaults];
}

export const qwenFacts: AgentFacts = {
  name: 'qwen',
  title: 'Qwen Code',
  // PostToolUse only on ask_user_question (the matcher recap installs): the user's answers.
  // PreCompact comes before Qwen Code compresses its conversation, on its own or on /compress.
  events: { UserPromptSubmit: 'prompt', PreToolUse: 'tool', PostToolUse: 'toolUsed', SessionStart: 'sessionStart', SessionEnd: 'sessionEnd', PreCompact: 'compacting' },
  shellTool: 'run_shell_command',
  toolCall: qwenToolCall,
  mcpToolName: qwenMcpToolName,
  deny: (reason) => json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: fitted(reason) } }),
  // A JSON object, never plain text: Qwen Code reads plain text on stdout as an allow (and,
  // on a prompt or a session start, as context for the model).
  notice: (text) => systemMessage(fitted(text)),
  withNotice: (answer, text) => withSystemMessage(answer, fitted(text)),
  context: (event, text) => {
    const shown = /[<>]/.test(text) ? `${ESCAPED_NOTE}\n\n${text}` : text;
    return json({ hookSpecificOutput: { hookEventName: event === 'prompt' ? 'UserPromptSubmit' : 'SessionStart', additionalContext: fitted(shown) } });
  },
  // No note on < and > as context has: its room is the instructions', which hold no command to type.
  steer: steerCompaction,
  // Under QWEN_TEXT_MAX with room for the note on < and >: the daemon makes the memory and a
  // demand fit, so fitted() never has to cut them.
  contextLimit: { max: QWEN_TEXT_MAX - 1000, unit: 'chars' },
  // Verified by running `env` through run_shell_command (test/e2e/qwen.test.ts).
  shellVariables: ['QWEN_CODE', 'QWEN_CODE_SESSION_ID'],
  sessionVariable: 'QWEN_CODE_SESSION_ID',
  // Every file that decides whether recap's hooks run: the settings (hooks, disableAllHooks,
  // folder trust), the trusted folders, and the home .env files, which may set QWEN_HOME and
  // so move the user settings elsewhere (a project's .env may not); and the extensions, whose
  // hooks a new session loads with no step of the user's (a folder written by hand is
  // enough) and runs outside the gate, or with a PermissionRequest hook's updatedInput
  // rewrites a call recap allowed.
  settingsFiles: (env, home) => [
    ...qwenDirs(env, home).flatMap((dir) => [join(dir, 'settings.json'), join(dir, 'trustedFolders.json'), join(dir, '.env'), join(dir, 'extensions')]),
    join(home, '.env'),
    ...(env.QWEN_CODE_TRUSTED_FOLDERS_PATH ? [env.QWEN_CODE_TRUSTED_FOLDERS_PATH] : []),
    ...systemSettingsFiles(env),
  ],
  // A trusted project's settings may hold recap's hooks, or disableAllHooks.
  projectSettingsFiles: (project) => [join(project, '.qwen', 'settings.json')],
  settingsNames: [
    { path: /\/\.qwen\/(?:settings|trustedFolders)\.json$/, mentioned: [/\.qwen\b/, /(?:settings|trustedFolders)\.json/], what: "Qwen Code's settings" },
    { path: /\/\.qwen\/extensions(?:\/|$)/, mentioned: [/\.qwen\b/, /\bextensions\b/], what: "Qwen Code's extensions, whose hooks run outside the gate" },
    // The qwen command's own extension subcommands (qwen extensions install, link, enable) name no file.
    { path: /(?!)/, mentioned: [/\bqwen\b/, /\bextensions?\b/], what: "Qwen Code's extensions, whose hooks run outside the gate" },
  ],
  launch: {
    title: 'Qwen Code',
    programs: ['qwen'],
    packages: ['@qwen-code/qwen-code'],
    switches: [
      { options: ['--bare'], does: 'no hooks' },
      { options: ['--safe-mode'], does: 'hooks, extensions and settings customisations disabled' },
    ],
    // System settings can say disableAllHooks for every other file.
    variables: /^(?:HOME|QWEN_HOME|QWEN_CODE_SAFE_MODE|QWEN_CODE_SYSTEM_SETTINGS_PATH|QWEN_CODE_SYSTEM_DEFAULTS_PATH)$/,
  },
};
