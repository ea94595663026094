// Claude Code as recap-hook sees it: its events, its tools in recap's terms, its answers.
// Verified against Claude Code 2.1.330 (shared/claude-code-hooks.md).
import { join } from 'node:path';
import { field, strings, questionsOf, type ToolCall, type ToolKind, memoryCall } from '../../events/toolCall.js';
import { isRecapMcpTool, type McpToolName } from '../../events/recapTools.js';
import { json, NOTHING, systemMessage, withSystemMessage, type AgentFacts, type HookAnswer } from '../facts.js';

const KINDS: Readonly<Record<string, ToolKind>> = {
  Bash: 'shell',
  Read: 'read',
  NotebookRead: 'read',
  LS: 'read',
  Glob: 'search',
  Grep: 'search',
  Write: 'write',
  Edit: 'edit',
  MultiEdit: 'edit',
  NotebookEdit: 'edit',
  AskUserQuestion: 'question',
  WebFetch: 'web',
  WebSearch: 'web',
};

/** Input fields that hold a path. */
const PATH_FIELDS = ['file_path', 'notebook_path', 'path'];

/** How Claude Code 2.1.330 names an MCP server's tool: mcp__<server>__<tool>. */
export const claudeMcpToolName: McpToolName = (server, tool) => `mcp__${server}__${tool}`;

export function claudeToolCall(name: string, input: unknown): ToolCall {
  if (isRecapMcpTool(name, claudeMcpToolName)) return memoryCall(name, input);
  const kind = KINDS[name] ?? (name.startsWith('mcp__') ? 'mcp' : 'other');
  const call: ToolCall = { name, kind, paths: strings(input, PATH_FIELDS), input };
  if (kind === 'shell') {
    const command = field(input, 'command');
    if (typeof command === 'string') call.command = command;
  }
  const pattern = field(input, 'pattern');
  if (name === 'Glob' && typeof pattern === 'string') call.glob = pattern;
  if (kind === 'question') {
    call.questions = questionsOf(input);
  }
  return call;
}

/**
 * The kinds recap records Claude Code's own turns under: not the user's words, so not
 * counted unless COUNT_KINDS names them. UserPromptSubmit fires for a finished background
 * task's notification and a `/loop` wakeup too; PostCompact carries Claude's own summary.
 */
export const MACHINE_KINDS = { taskNotification: 'task-notification', loopWakeup: 'loop-wakeup', compactSummary: 'compact-summary' } as const;

/**
 * A Claude model's window as Claude Code 2.1.330 reports it: 1,000,000 tokens for the
 * fifth generation (its default, and the sonnet and haiku aliases) and for a `[1m]` model,
 * 200,000 for the earlier ones (claude-sonnet-4-5). A status line reports the exact window
 * (`recap statusline`), which wins over this.
 */
export function claudeContextWindow(model: string): number | undefined {
  if (/\[1m\]$/i.test(model)) return 1_000_000;
  const generation = /^claude-(?:opus|sonnet|haiku)-(\d+)/.exec(model)?.[1];
  if (generation === undefined) return undefined;
  return Number(generation) >= 5 ? 1_000_000 : 200_000;
}

/**
 * PreCompact's plain stdout (exit 0) is appended to the summary request under "Additional
 * Instructions:" (2.1.330). Text that reads as a JSON object would be taken for JSON output,
 * so such text is not sent; nothing that could block (exit 2, `decision: "block"`) ever is.
 */
function steerCompaction(instructions: string): HookAnswer {
  const trimmed = instructions.trim();
  if (trimmed === '' || (trimmed.startsWith('{') && trimmed.endsWith('}'))) return NOTHING;
  return { stdout: instructions, exitCode: 0 };
}

/** Where Claude Code keeps its user- and local-scope MCP servers: ~/.claude.json, or $CLAUDE_CONFIG_DIR/.claude.json. */
export const claudeMcpFiles = (env: NodeJS.ProcessEnv, home: string) => [
  join(home, '.claude.json'),
  ...(env.CLAUDE_CONFIG_DIR ? [join(env.CLAUDE_CONFIG_DIR, '.claude.json')] : []),
];

const claudeDirs = (env: NodeJS.ProcessEnv, home: string) => [...new Set([join(home, '.claude'), ...(env.CLAUDE_CONFIG_DIR ? [env.CLAUDE_CONFIG_DIR] : [])])];

export const claudeFacts: AgentFacts = {
  name: 'claude',
  title: 'Claude Code',
  events: {
    UserPromptSubmit: 'prompt',
    PreToolUse: 'tool',
    PostToolUse: 'toolUsed',
    SessionStart: 'sessionStart',
    SessionEnd: 'sessionEnd',
    PreCompact: 'compacting',
    PostCompact: 'compaction',
  },
  shellTool: 'Bash',
  toolCall: claudeToolCall,
  mcpToolName: claudeMcpToolName,
  deny: (reason) => json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } }),
  notice: systemMessage,
  withNotice: withSystemMessage,
  context: (event, text) => json({ hookSpecificOutput: { hookEventName: event === 'prompt' ? 'UserPromptSubmit' : 'SessionStart', additionalContext: text } }),
  steer: steerCompaction,
  // Longer context reaches the model as a 2,000-character preview and a file to Read, which a
  // tripped gate denies (measured on 2.1.330: 10,000 characters pass whole, 10,001 do not).
  contextLimit: { max: 10_000, unit: 'chars' },
  contextWindow: claudeContextWindow,
  shellVariables: ['CLAUDECODE', 'CLAUDE_CODE_SESSION_ID'],
  sessionVariable: 'CLAUDE_CODE_SESSION_ID',
  // Both: Claude Code reads CLAUDE_CONFIG_DIR when it is set, and a session started without
  // it reads ~/.claude. Its shell snapshots hold functions it copies into every Bash call, and
  // session-env/<session>/ the scripts it sources before each one (what SessionStart hooks
  // write to $CLAUDE_ENV_FILE): a function there named as recap's launcher would run in its
  // place; plugins/ says where recap's plugin is loaded from and which Node its hook runs.
  settingsFiles: (env, home) => [
    ...claudeDirs(env, home).flatMap((dir) => ['settings.json', 'settings.local.json', 'shell-snapshots', 'session-env', 'plugins'].map((name) => join(dir, name))),
    ...(env.CLAUDE_ENV_FILE ? [env.CLAUDE_ENV_FILE] : []),
    // Its MCP servers (user and local scope), recap's among them: a server the agent named `recap` would pass a tripped gate.
    ...claudeMcpFiles(env, home),
  ],
  projectSettingsFiles: (project) => [join(project, '.claude', 'settings.json'), join(project, '.claude', 'settings.local.json'), join(project, '.mcp.json')],
  settingsNames: [
    { path: /\/\.claude\/settings(\.local)?\.json$/, mentioned: [/\.claude\b/, /settings(\.local)?\.json/], what: "Claude Code's settings" },
    { path: /\/\.claude\.json$|\/\.mcp\.json$/, mentioned: [/\.claude\.json|\.mcp\.json/], what: "Claude Code's MCP servers, recap's among them" },
    // `claude mcp add|remove`: its own commands change the MCP servers and name no file.
    { path: /(?!)/, mentioned: [/\bclaude\b/, /\bmcp\b/], what: "Claude Code's MCP servers, recap's among them" },
    // `claude plugin disable --all`, `claude plugin marketplace remove ...`: its own commands
    // change which plugins load, recap's among them, and name no file.
    { path: /(?!)/, mentioned: [/\bclaude\b/, /\bplugins?\b/], what: "Claude Code's plugins, one of which runs recap's hooks" },
  ],
  // Claude Code 2.1.330's own switches (claude --help) and variables (its binary's text).
  // --plugin-dir and --plugin-url add a plugin beside recap's hooks, taking none away.
  launch: {
    title: 'Claude Code',
    programs: ['claude'],
    packages: ['@anthropic-ai/claude-code'],
    switches: [
      { options: ['--bare'], does: 'no settings or plugin hooks at all' },
      { options: ['--safe-mode'], does: 'hooks and installed plugins disabled' },
      { options: ['--restricted'], does: 'user, project and local settings ignored' },
      {
        options: ['--setting-sources'],
        takesValue: true,
        keeps: (value) =>
          ['user', 'project', 'local'].every((source) =>
            value
              .split(',')
              .map((s) => s.trim())
              .includes(source),
          ),
        does: "settings left out, recap's hooks with them",
      },
      // Inline JSON is read here; a file is not (it could say disableAllHooks), so only JSON that
      // names neither hooks nor plugins passes.
      {
        options: ['--settings'],
        takesValue: true,
        keeps: (value) => value.trim().startsWith('{') && !/hook|plugin/i.test(value) && !namesHooksOrPlugins(value),
        does: 'settings that can turn hooks off (disableAllHooks), or a file recap cannot read',
      },
    ],
    variables: /^(?:HOME|CLAUDE_CONFIG_DIR|CLAUDE_CODE_(?:SIMPLE|SAFE_MODE|RESTRICTED|RESTRICT_PERSONAL_CONFIG|PERSONAL_\w+|HOST_OWNED_CONFIG_DIR|\w*SETTINGS\w*|\w*HOOKS?\w*))$/,
  },
};

/**
 * Whether inline settings name hooks or plugins once read as JSON, escapes decoded
 * (`"disableAllHoo\u006bs"`): JSON that cannot be read is taken to name them.
 */
function namesHooksOrPlugins(json: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return true;
  }
  const names = (value: unknown): boolean => value !== null && typeof value === 'object' && Object.entries(value).some(([key, inner]) => /hook|plugin/i.test(key) || names(inner));
  return names(parsed);
}
