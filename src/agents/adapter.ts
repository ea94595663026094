// An agent as the daemon and the CLI see it: its facts (facts.ts), its hook payloads read
// into recap's own terms, its transcript's usage, its installer and its doctor checks.
// Everything else in recap knows no agent.
import type { Check } from '../common/check.js';
import type { McpConfig } from './kit/mcpServers.js';
import type { ToolCall } from '../events/toolCall.js';
import type { UsageEntry } from '../events/commands.js';
import type { AgentFacts } from './facts.js';

/** A turn the agent's harness wrote as if the user had (a task's notification, a timer's wakeup), with its own interaction kind. */
export type MachineTurn = { text: string; kind: string };

/**
 * What one line of an agent's transcript says: a model response's usage, the context it used
 * and its model when it is the main agent's, or a turn its harness made; undefined for any
 * other line.
 */
export type LineUsage = (value: unknown) => { usage?: UsageEntry; context?: number; model?: string; machine?: MachineTurn } | undefined;

/** What an agent's hook call is about, in recap's terms. */
export type HookCall =
  /** The user's own prompt (system-made and empty ones are not prompts). */
  | { kind: 'prompt'; text: string }
  | { kind: 'tool'; call: ToolCall }
  /** A tool that ran; `qa` when it was a question with the user's answer. */
  | { kind: 'toolUsed'; qa?: string }
  /**
   * A turn the agent or its harness made, not the user (a task's notification, a timer's
   * wakeup, the agent's own compaction summary): recorded as its own kind, counted only
   * when COUNT_KINDS names it.
   */
  | { kind: 'machine'; as: string; text: string }
  | { kind: 'sessionStart' }
  /** The session ended (the agent's SessionEnd): its figures go on record; never blocked, nothing to say. */
  | { kind: 'sessionEnd'; reason?: string }
  /** The agent is about to compact its conversation: its summary is steered, never blocked. */
  | { kind: 'compacting' };

/** Who makes the call and where: the same for every event of an agent. */
export type Caller = {
  cwd: string;
  session?: string;
  /** A subagent's id; the main agent otherwise. */
  agent?: string;
  transcript?: string;
};

export type ParsedHook =
  | { ok: true; call: HookCall; caller: Caller }
  /** An event recap does not act on (or a prompt that is not the user's): nothing to do. */
  | { ok: true; call: undefined; event: unknown }
  /** A payload of an unexpected shape: a tool call is judged as an unknown tool. */
  | { ok: false; event: string; toolCall: boolean; problems: string; session?: string; cwd?: string };

export type InstallOptions = {
  scope: 'user' | 'project';
  project: string;
  env: NodeJS.ProcessEnv;
  http?: { url: string; token: string };
  /** As the agent's plugin, where it has one (`recap install --plugin`). */
  plugin?: boolean;
  /** The agent's own OS sandbox too, kept out of recap's files and socket (`recap install --sandbox`). */
  sandbox?: boolean;
};
/** Where recap's hooks are now, whether this install changed anything, and what the user should know. */
export type Installed = { file: string; changed: boolean; mode: 'command' | 'http' | 'plugin'; warnings: string[] };

export type Adapter = {
  facts: AgentFacts;
  parse(payload: unknown): ParsedHook;
  /** What a line of the agent's transcript says of the model's usage. */
  transcriptUsage?: LineUsage;
  /**
   * The hook runs the way out itself: the agent's shell cannot reach the daemon (Codex's
   * sandbox), so a whitelisted recap command is answered by the hook, not run. A function
   * decides per call (asked only for a way out): whether this caller's shell may be sandboxed.
   */
  wayOutInHook?: boolean | ((caller: Caller) => boolean);
  /**
   * `recap install --sandbox`: true when recap configures the agent's own OS sandbox, else
   * why it cannot and what the user can do instead.
   */
  sandbox: true | { unsupported: string };
  /** Whether the agent supports HTTP hooks (`recap install --http`). */
  http?: boolean;
  /** Whether recap can be installed as the agent's plugin (`recap install --plugin`). */
  plugin?: boolean;
  install(options: InstallOptions): Installed;
  /** Where the agent keeps MCP servers, for recap's (`recap install --mcp`): none for an agent recap does not register it with. */
  mcp?: McpConfig;
  /** The files recap's entries were removed from. */
  uninstall(options: InstallOptions): string[];
  /** Whether recap is installed for this agent, and will really run; [] when the agent is not in use. */
  doctor(project: string, env: NodeJS.ProcessEnv): Check[];
};
