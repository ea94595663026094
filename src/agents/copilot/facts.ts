// GitHub Copilot CLI as recap-hook sees it: its events, its tools in recap's terms, its answers.
// Verified against Copilot CLI 1.0.102 (shared/agents/copilot.md, test/fixtures/agents/copilot).
// recap installs the PascalCase events, whose payloads are Claude Code's shape; the tool
// names of both dialects are mapped all the same, so a hook file of either kind is read right.
import { isAbsolute, join } from 'node:path';
import { field, strings, type ToolCall, type ToolKind, memoryCall } from '../../events/toolCall.js';
import { isRecapMcpTool, type McpToolName } from '../../events/recapTools.js';
import { json, NOTHING, type AgentFacts, type HookAnswer } from '../facts.js';

const KINDS: Readonly<Record<string, ToolKind>> = {
  Bash: 'shell',
  bash: 'shell',
  // Input typed into a running shell session is read as a command line, and is never the way out.
  write_bash: 'shell',
  Read: 'read',
  view: 'read',
  Glob: 'search',
  glob: 'search',
  Grep: 'search',
  grep: 'search',
  Write: 'write',
  create: 'write',
  Edit: 'edit',
  edit: 'edit',
  web_fetch: 'web',
  ask_user: 'question',
};

/** Input fields that hold a path: view, create and edit name theirs `path`; grep and glob take `paths`, one or a list. */
const PATH_FIELDS = ['path', 'file_path'];

function pathsOf(input: unknown): string[] {
  const paths = strings(input, PATH_FIELDS);
  const many = field(input, 'paths');
  if (typeof many === 'string' && many !== '') paths.push(many);
  else if (Array.isArray(many)) paths.push(...many.filter((p): p is string => typeof p === 'string' && p !== ''));
  return paths;
}

/** How GitHub Copilot CLI names an MCP server's tool: <server>-<tool> (github-mcp-server-list_issues), in both dialects. */
export const copilotMcpToolName: McpToolName = (server, tool) => `${server}-${tool}`;

export function copilotToolCall(name: string, input: unknown): ToolCall {
  if (isRecapMcpTool(name, copilotMcpToolName)) return memoryCall(name, input);
  const kind = KINDS[name] ?? 'other';
  const call: ToolCall = { name, kind, paths: pathsOf(input), input };
  if (kind === 'shell') {
    const typed = name === 'write_bash';
    const command = field(input, typed ? 'input' : 'command');
    if (typeof command === 'string') call.command = command;
    if (typed) call.typedIntoSession = true;
  }
  // glob's pattern, and grep's file filter, are globs under its first path (else the folder).
  const glob = kind === 'search' ? field(input, /^glob$/i.test(name) ? 'pattern' : 'glob') : undefined;
  if (typeof glob === 'string' && glob !== '') call.glob = glob;
  if (kind === 'question') {
    const question = field(input, 'question');
    call.questions = typeof question === 'string' ? [question] : [];
  }
  return call;
}

/**
 * The most Copilot CLI takes on a hook's stdout: 65,536 bytes were used whole, 65,573 dropped
 * whole (a deny lost, the tool run; a context lost). recap keeps every answer under this.
 */
export const ANSWER_MAX_BYTES = 60_000;

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * The answer `render` makes of `text`, cut until its stdout fits ANSWER_MAX_BYTES, with a
 * line saying so. JSON escapes make the stdout longer than the text, so it is measured whole.
 */
export function fittedAnswer(text: string, render: (text: string) => HookAnswer): HookAnswer {
  const whole = render(text);
  let size = bytes(whole.stdout);
  if (size <= ANSWER_MAX_BYTES) return whole;
  let kept = text.length;
  for (;;) {
    kept = Math.max(0, Math.floor((kept * ANSWER_MAX_BYTES) / size) - 512);
    // Never half a surrogate pair.
    const last = text.charCodeAt(kept - 1);
    if (kept > 0 && last >= 0xd800 && last <= 0xdbff) kept -= 1;
    const answer = render(`${text.slice(0, kept)}\n[recap cut the last ${text.length - kept} characters to fit Copilot CLI's 64 KiB hook output limit]`);
    size = bytes(answer.stdout);
    if (size <= ANSWER_MAX_BYTES || kept === 0) return answer;
  }
}

/** Copilot CLI's own folder: COPILOT_HOME (absolute), else ~/.copilot. */
export function copilotHome(env: NodeJS.ProcessEnv, home: string): string {
  const custom = env.COPILOT_HOME;
  return custom !== undefined && isAbsolute(custom) ? custom : join(home, '.copilot');
}

/** Both folders: a session started without COPILOT_HOME reads ~/.copilot. */
const copilotDirs = (env: NodeJS.ProcessEnv, home: string) => [...new Set([join(home, '.copilot'), copilotHome(env, home)])];

export const copilotFacts: AgentFacts = {
  name: 'copilot',
  title: 'GitHub Copilot CLI',
  events: { UserPromptSubmit: 'prompt', PreToolUse: 'tool', SessionStart: 'sessionStart', SessionEnd: 'sessionEnd' },
  // The name the model sees (the hook sees Bash).
  shellTool: 'bash',
  toolCall: copilotToolCall,
  mcpToolName: copilotMcpToolName,
  // Top level: Copilot CLI reads it under both dialects (the nested Claude form only under
  // PascalCase). Never "allow": that would skip Copilot CLI's own permission rules.
  deny: (reason) => fittedAnswer(reason, (text) => json({ permissionDecision: 'deny', permissionDecisionReason: text })),
  notice: (text) => (text === '' ? NOTHING : fittedAnswer(text, (t) => json({ systemMessage: t }))),
  // Only a top-level additionalContext reaches the model, at a session start and at a prompt.
  context: (_event, text) => fittedAnswer(text, (t) => json({ additionalContext: t })),
  // Bytes of text, with room left for JSON's escapes (a newline is two bytes) under ANSWER_MAX_BYTES.
  contextLimit: { max: 48_000, unit: 'bytes' },
  // Seen by running `env` through the bash tool of the real binary (test/e2e/copilot.test.ts).
  shellVariables: ['COPILOT_CLI', 'COPILOT_AGENT_SESSION_ID'],
  sessionVariable: 'COPILOT_AGENT_SESSION_ID',
  // The hooks folder (any *.json there runs, no trust asked), the settings (hooks, and
  // disableAllHooks), config.json (trustedFolders: a trusted repo's settings can switch
  // every hook off), and the plugins, whose hooks run outside the gate.
  settingsFiles: (env, home) =>
    copilotDirs(env, home).flatMap((dir) => [
      join(dir, 'hooks'),
      join(dir, 'settings.json'),
      join(dir, 'settings.local.json'),
      join(dir, 'config.json'),
      join(dir, 'mcp-config.json'),
      join(dir, 'installed-plugins'),
    ]),
  // A trusted repo's hooks, settings (disableAllHooks turns the user's hooks off too) and MCP
  // servers (.github/mcp.json: one named recap would pass a tripped gate as recap's tools).
  projectSettingsFiles: (project) => [
    join(project, '.github', 'hooks'),
    join(project, '.github', 'copilot', 'settings.json'),
    join(project, '.github', 'copilot', 'settings.local.json'),
    join(project, '.github', 'mcp.json'),
  ],
  settingsNames: [
    {
      path: /\/\.copilot\/(?:hooks(?:\/|$)|settings(?:\.local)?\.json$|(?:mcp-)?config\.json$)/,
      mentioned: [/\.copilot\b/, /\bhooks\b|(?:settings|(?:mcp-)?config)(?:\.local)?\.json/],
      what: "GitHub Copilot CLI's hooks, settings and MCP servers",
    },
    { path: /\/\.copilot\/installed-plugins(?:\/|$)/, mentioned: [/\.copilot\b/, /installed-plugins/], what: "GitHub Copilot CLI's plugins, whose hooks run outside the gate" },
    {
      path: /\/\.github\/(?:hooks(?:\/|$)|copilot\/settings(?:\.local)?\.json$|mcp\.json$)/,
      mentioned: [/\.github\b/, /\bhooks\b|copilot\/settings|\bmcp\.json/],
      what: "a repository's GitHub Copilot CLI hooks, settings and MCP servers",
    },
    // The copilot command's own plugin subcommands (copilot plugin install DIR) name no file.
    { path: /(?!)/, mentioned: [/\bcopilot\b/, /\bplugins?\b/], what: "GitHub Copilot CLI's plugins, whose hooks run outside the gate" },
  ],
  // A trusted folder's .github/copilot/settings.json can say disableAllHooks for the user's
  // hooks too: trusting one for the session is a switch like another COPILOT_HOME.
  launch: {
    title: 'GitHub Copilot CLI',
    programs: ['copilot'],
    packages: ['@github/copilot'],
    switches: [{ options: ['--trust-folder'], does: "a folder trusted, whose settings can turn the user's hooks off" }],
    variables: /^(?:HOME|COPILOT_HOME|COPILOT_ALLOW_ALL)$/,
  },
};
