// Gemini CLI as recap-hook sees it: its events, its tools in recap's terms, its answers.
// Verified against Gemini CLI 0.61.0 (shared/agents/gemini.md).
import { join } from 'node:path';
import { field, strings, questionsOf, type ToolCall, type ToolKind, memoryCall } from '../../events/toolCall.js';
import { isRecapMcpTool, type McpToolName } from '../../events/recapTools.js';
import { json, systemMessage, withSystemMessage, type AgentFacts } from '../facts.js';

const KINDS: Readonly<Record<string, ToolKind>> = {
  run_shell_command: 'shell',
  read_file: 'read',
  read_many_files: 'read',
  list_directory: 'read',
  glob: 'search',
  grep_search: 'search',
  // grep_search's former name, which the CLI still accepts from the model.
  search_file_content: 'search',
  write_file: 'write',
  replace: 'edit',
  ask_user: 'question',
  web_fetch: 'web',
  google_web_search: 'web',
};

/** Input fields that hold a path: every file tool names its file or folder with one of these. */
const PATH_FIELDS = ['file_path', 'dir_path'];

/** How Gemini CLI names an MCP server's tool: mcp_<server>_<tool> (agents/gemini.md). */
export const geminiMcpToolName: McpToolName = (server, tool) => `mcp_${server}_${tool}`;

export function geminiToolCall(name: string, input: unknown): ToolCall {
  if (isRecapMcpTool(name, geminiMcpToolName)) return memoryCall(name, input);
  const kind = KINDS[name] ?? (name.startsWith('mcp_') ? 'mcp' : 'other');
  const call: ToolCall = { name, kind, paths: [], input };
  if (kind === 'shell') {
    // dir_path is where the command runs, not a path it touches.
    const command = field(input, 'command');
    if (typeof command === 'string') call.command = command;
    const dir = field(input, 'dir_path');
    if (typeof dir === 'string' && dir !== '') call.dir = dir;
    return call;
  }
  call.paths = strings(input, PATH_FIELDS);
  if (name === 'read_many_files') {
    // Paths or globs, from the workspace: each is judged by what it names literally.
    const include = field(input, 'include');
    if (Array.isArray(include)) call.paths.push(...include.filter((p): p is string => typeof p === 'string' && p !== ''));
  }
  // glob's pattern, and grep_search's file filter, are globs under dir_path (else the folder).
  const glob = name === 'glob' ? field(input, 'pattern') : name === 'grep_search' || name === 'search_file_content' ? field(input, 'include_pattern') : undefined;
  if (typeof glob === 'string' && glob !== '') call.glob = glob;
  if (kind === 'question') {
    call.questions = questionsOf(input);
  }
  return call;
}

/** Gemini CLI's folder: GEMINI_CLI_HOME replaces the home folder when it is set. */
export function geminiDir(env: NodeJS.ProcessEnv, home: string): string {
  return join(env.GEMINI_CLI_HOME || home, '.gemini');
}

const geminiDirs = (env: NodeJS.ProcessEnv, home: string) => [...new Set([join(home, '.gemini'), geminiDir(env, home)])];

/** Gemini CLI shows `<` and `>` of a hook's context to the model as `&lt;` and `&gt;`. */
const ESCAPED = '\n\n(Gemini CLI shows the characters < and > in this text as &lt; and &gt;; type them as < and > in commands.)';

export const geminiFacts: AgentFacts = {
  name: 'gemini',
  title: 'Gemini CLI',
  events: { BeforeAgent: 'prompt', BeforeTool: 'tool', AfterTool: 'toolUsed', SessionStart: 'sessionStart', SessionEnd: 'sessionEnd' },
  shellTool: 'run_shell_command',
  toolCall: geminiToolCall,
  mcpToolName: geminiMcpToolName,
  // The model reads "Tool execution blocked: <reason>" as the tool's result.
  deny: (reason) => json({ decision: 'deny', reason }),
  notice: systemMessage,
  withNotice: withSystemMessage,
  context: (event, text) =>
    json({
      hookSpecificOutput: { hookEventName: event === 'prompt' ? 'BeforeAgent' : 'SessionStart', additionalContext: /[<>]/.test(text) ? `${text}${ESCAPED}` : text },
    }),
  // run_shell_command sets GEMINI_CLI=1; it carries no session id (checked with `env`).
  shellVariables: ['GEMINI_CLI'],
  // What decides whether recap's hooks load and run: the settings (hooksConfig, the
  // environment redaction), every extension (recap's own, the enablement file, and any other,
  // whose hooks could rewrite a call recap allowed), the folders trusted (a trusted folder's
  // .env and settings apply) and the .env files the CLI reads into its hooks' environment.
  settingsFiles: (env, home) => [
    ...geminiDirs(env, home).flatMap((dir) => [join(dir, 'settings.json'), join(dir, 'extensions'), join(dir, 'trustedFolders.json'), join(dir, '.env')]),
    ...geminiDirs(env, home).map((dir) => join(dir, '..', '.env')),
    // The system layer, over the user's: an agent running as root (a container) could turn hooks off there.
    env.GEMINI_CLI_SYSTEM_SETTINGS_PATH || '/etc/gemini-cli/settings.json',
    env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH || '/etc/gemini-cli/system-defaults.json',
  ],
  projectSettingsFiles: (project) => [join(project, '.gemini', 'settings.json'), join(project, '.gemini', '.env')],
  settingsNames: [
    {
      path: /\/\.gemini\/(?:settings\.json|trustedFolders\.json|\.env)$/,
      mentioned: [/\.gemini\b/, /settings\.json|trustedFolders\.json|\.env\b/],
      what: "Gemini CLI's settings",
    },
    { path: /\/\.gemini\/extensions(?:\/|$)/, mentioned: [/\.gemini\b/, /\bextensions\b/], what: "Gemini CLI's extensions, recap's hooks among them" },
    // The gemini command's own setup subcommands (gemini extensions disable recap, gemini
    // hooks migrate, gemini trust) name no file.
    { path: /(?!)/, mentioned: [/\bgemini\b/, /\b(?:extensions?|hooks|trust)\b/], what: "Gemini CLI's extensions, hooks or trusted folders" },
  ],
  // recap's hooks come in its extension (extension.ts's EXTENSION_NAME); -e names the only
  // extensions a session loads.
  launch: {
    title: 'Gemini CLI',
    programs: ['gemini'],
    packages: ['@google/gemini-cli'],
    switches: [
      {
        options: ['-e', '--extensions'],
        takesValue: true,
        keeps: (list) => list.split(/[\s,]+/).some((name) => name.toLowerCase() === 'recap'),
        does: "extensions chosen without recap's",
      },
    ],
    variables: /^(?:HOME|GEMINI_CLI_HOME|GEMINI_CLI_SYSTEM_SETTINGS_PATH|GEMINI_CLI_SYSTEM_DEFAULTS_PATH)$/,
  },
};
