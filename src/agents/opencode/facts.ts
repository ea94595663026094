// opencode as recap-hook sees it: the events recap's plugin forwards, its tools in recap's
// terms, and the answers the plugin acts on. Verified against opencode 1.18.33
// (shared/agents/opencode.md, test/fixtures/agents/opencode).
//
// opencode has no command hooks: recap's plugin (plugin.ts, rendered by install.ts) runs
// inside it, turns each hook into recap's own neutral payload (the field names every other
// agent's payload has: hook_event_name, cwd, session_id, agent_id, tool_name, tool_input,
// prompt) and acts on the answer: a deny is thrown (the model reads the message as the tool's
// result), a context is added to the prompt or, for the memory, to the system prompt.
import { isAbsolute, join } from 'node:path';
import { field, patchPaths, strings, questionsOf, type ToolCall, type ToolKind, memoryCall } from '../../events/toolCall.js';
import { isRecapMcpTool, type McpToolName } from '../../events/recapTools.js';
import { json, systemMessage, withSystemMessage, type AgentFacts } from '../facts.js';
import { xdgConfigHome } from '../../common/paths.js';

/**
 * The plugin's event names: word characters only, so recap-hook still finds the event in the
 * first bytes of a payload too large to read whole (and denies such a tool call).
 */
export const EVENTS = {
  /** `chat.message`: a user message, or a subagent's prompt (then agent_id is set). */
  prompt: 'chat_message',
  /** `tool.execute.before`. */
  tool: 'tool_execute_before',
  /** `experimental.chat.system.transform`, once per session and user message: the memory. */
  memory: 'system_transform',
} as const;

/** The variable recap's plugin sets in opencode's bash tool (shell.env): the session the hook checked. */
export const SESSION_VARIABLE = 'RECAP_OPENCODE_SESSION_ID';

const KINDS: Readonly<Record<string, ToolKind>> = {
  bash: 'shell',
  read: 'read',
  list: 'read',
  lsp: 'read',
  glob: 'search',
  grep: 'search',
  codesearch: 'web',
  write: 'write',
  edit: 'edit',
  multiedit: 'edit',
  apply_patch: 'patch',
  question: 'question',
  webfetch: 'web',
  websearch: 'web',
};

/** Input fields that hold a path: opencode's file tools name it `filePath`, list and the search tools `path`. */
const PATH_FIELDS = ['filePath', 'path'];

/** How opencode names an MCP server's tool: <server>_<tool>, like its custom tools (whose folders are protected). */
export const opencodeMcpToolName: McpToolName = (server, tool) => `${server}_${tool}`;

export function opencodeToolCall(name: string, input: unknown): ToolCall {
  if (isRecapMcpTool(name, opencodeMcpToolName)) return memoryCall(name, input);
  const command = field(input, 'command');
  // A bash call without a command line to read is judged as an unknown tool: every path in it.
  const known = KINDS[name] === 'shell' && typeof command !== 'string' ? undefined : KINDS[name];
  // MCP tools are named `<server>_<tool>`, like custom tools: both are judged as unknown tools.
  const kind = known ?? 'other';
  const call: ToolCall = { name, kind, paths: [], input };
  switch (kind) {
    case 'shell': {
      call.command = command as string;
      const workdir = field(input, 'workdir');
      if (typeof workdir === 'string' && workdir !== '') call.dir = workdir;
      break;
    }
    case 'patch': {
      const patch = field(input, 'patchText');
      call.paths = patchPaths(
        typeof patch === 'string'
          ? patch
          : Object.values(input ?? {})
              .filter((v): v is string => typeof v === 'string')
              .join('\n'),
      );
      break;
    }
    case 'question': {
      call.questions = questionsOf(input);
      break;
    }
    default:
      call.paths = strings(input, PATH_FIELDS);
  }
  // glob's pattern, and grep's file filter, are globs under `path` (else the folder).
  const glob = name === 'glob' ? field(input, 'pattern') : name === 'grep' ? field(input, 'include') : undefined;
  if (typeof glob === 'string' && glob !== '') call.glob = glob;
  return call;
}

/** opencode's global config folder: $XDG_CONFIG_HOME/opencode, else ~/.config/opencode. */
export function opencodeConfigDir(env: NodeJS.ProcessEnv, home: string): string {
  return join(xdgConfigHome({ ...env, HOME: home }), 'opencode');
}

/**
 * Every folder opencode loads plugins (and custom tools, agents, config) from for every
 * project: the global config folder, ~/.opencode, and OPENCODE_CONFIG_DIR when it is set.
 */
export function opencodeConfigDirs(env: NodeJS.ProcessEnv, home: string): string[] {
  const dirs = [opencodeConfigDir(env, home), join(home, '.config', 'opencode'), join(home, '.opencode')];
  const custom = env.OPENCODE_CONFIG_DIR;
  if (custom !== undefined && isAbsolute(custom)) dirs.push(custom);
  return [...new Set(dirs)];
}

/** Whether OPENCODE_PURE switches plugins off, read as opencode reads it ("1" or "true", any case). */
export function pluginsOff(env: NodeJS.ProcessEnv): boolean {
  const value = env.OPENCODE_PURE?.toLowerCase();
  return value === '1' || value === 'true';
}

export const opencodeFacts: AgentFacts = {
  name: 'opencode',
  title: 'opencode',
  events: { [EVENTS.prompt]: 'prompt', [EVENTS.tool]: 'tool', [EVENTS.memory]: 'sessionStart' },
  shellTool: 'bash',
  toolCall: opencodeToolCall,
  mcpToolName: opencodeMcpToolName,
  // Thrown by the plugin: the model reads the message, unchanged, as the tool's result.
  deny: (reason) => json({ deny: reason }),
  // Written by the plugin to opencode's log and shown as a toast in its TUI.
  notice: systemMessage,
  withNotice: withSystemMessage,
  // At a prompt: a text part added to the user's message; at a session start: the system prompt.
  context: (_event, text) => json({ context: text }),
  // opencode hands the model a thrown message and a system prompt whole (200 KB checked):
  // no contextLimit. Its bash tool sets OPENCODE=1 and OPENCODE_PID (checked with `env`);
  // recap's plugin adds the session.
  shellVariables: ['OPENCODE', 'OPENCODE_PID', SESSION_VARIABLE],
  sessionVariable: SESSION_VARIABLE,
  // Whatever loads code into opencode: a plugin (or a custom tool) there runs inside it and
  // could rewrite the args of a call recap checked, or switch recap's plugin off; a config
  // file can name plugins too (OPENCODE_CONFIG names one more).
  // Its cache holds the npm plugins a config names, installed there and run inside opencode.
  settingsFiles: (env, home) => [
    ...opencodeConfigDirs(env, home),
    ...(env.OPENCODE_CONFIG !== undefined && isAbsolute(env.OPENCODE_CONFIG) ? [env.OPENCODE_CONFIG] : []),
    join(env.XDG_CACHE_HOME !== undefined && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(home, '.cache'), 'opencode'),
  ],
  // A project's .opencode/ loads its plugins with no step of the user's; its opencode.json can name more.
  projectSettingsFiles: (project) => [join(project, '.opencode'), join(project, 'opencode.json'), join(project, 'opencode.jsonc')],
  settingsNames: [
    {
      path: /\/(?:\.opencode|\.config\/opencode)(?:\/|$)/,
      mentioned: [/(?:\.opencode|\.config\/opencode)(?![\w-])/],
      what: "opencode's config folders, whose plugins run inside opencode",
    },
    { path: /\/opencode\.jsonc?$/, mentioned: [/\bopencode\.jsonc?\b/], what: "opencode's config, which can name plugins" },
    // The opencode command's own setup subcommands (opencode mcp add, opencode uninstall) name no file.
    { path: /(?!)/, mentioned: [/\bopencode\b/, /\b(?:mcp|uninstall|plugins?)\b/], what: "opencode's config and plugins" },
  ],
  // recap is a plugin in the global config folder: --pure loads none, another config home
  // loses it, and another config (file, text or folder) can add a plugin that rewrites a call.
  launch: {
    title: 'opencode',
    programs: ['opencode'],
    packages: ['opencode-ai'],
    switches: [{ options: ['--pure'], does: "no plugins, recap's among them" }],
    variables: /^(?:HOME|XDG_CONFIG_HOME|OPENCODE_(?:PURE|CONFIG|CONFIG_CONTENT|CONFIG_DIR|TEST_HOME|TEST_MANAGED_CONFIG_DIR|DISABLE_DEFAULT_PLUGINS))$/,
  },
};
