// What recap must know of an agent on every hook call, in the hook client and its fallback
// as well as in the daemon: its event names, its tool names turned into recap's own terms,
// its answer formats, the files that wire recap in. Pure and dependency-free, so recap-hook
// stays small; the rest of an agent (payload schemas, transcript, installer, doctor) is in
// its adapter (adapter.ts).
import type { ContextLimit } from '../events/contextFit.js';
import type { AgentLaunch } from '../events/nestedAgents.js';
import type { SettingsName } from '../events/protection.js';
import type { McpToolName } from '../events/recapTools.js';
import type { ToolCall } from '../events/toolCall.js';

/** What recap-hook prints and the exit code it ends with. */
export type HookAnswer = { stdout: string; exitCode: number };

/**
 * recap's own names for the hook events it acts on; `compacting` comes before the agent
 * compacts its conversation (its answer steers the agent's summary), `compaction` records
 * the agent's own summary of its compacted conversation, `sessionEnd` a session's end (its
 * report recorded, never held back).
 */
export type EventKind = 'prompt' | 'tool' | 'toolUsed' | 'sessionStart' | 'sessionEnd' | 'compacting' | 'compaction';

export type AgentFacts = {
  /** The name `recap install <name>` and `recap-hook <name>` take. */
  name: string;
  /** The agent as its users call it. */
  title: string;
  /** The agent's hook event names that recap acts on; any other is answered with nothing. */
  events: Readonly<Record<string, EventKind>>;
  /** The agent's shell tool, named in the messages that say how to get out of a tripped gate. */
  shellTool: string;
  /** A tool call in recap's terms: its kind, command and paths. */
  toolCall(name: string, input: unknown): ToolCall;
  /** How the agent names an MCP server's tool (recap's own are let through a tripped gate: recapTools.ts). */
  mcpToolName: McpToolName;
  /** The answer that denies a tool call, with the reason the model reads. */
  deny(reason: string): HookAnswer;
  /** An answer that lets the call go on and tells the user something. */
  notice(text: string): HookAnswer;
  /** The answer with a notice for the user added, where the agent's format has room for both. */
  withNotice?(answer: HookAnswer, text: string): HookAnswer;
  /** An answer that adds text to the model's context at a prompt or a session start. */
  context(event: 'prompt' | 'sessionStart', text: string): HookAnswer;
  /**
   * The answer that adds instructions to the agent's own summary request when it compacts, for
   * an agent whose pre-compaction hook can do that (its `compacting` event); never a block.
   */
  steer?(instructions: string): HookAnswer;
  /**
   * The most context text the agent hands the model whole, if it has a limit: recap's memory
   * and gate messages are made to fit, whatever CONTEXT_BUDGET says.
   */
  contextLimit?: ContextLimit;
  /** The context window of one of the agent's models in tokens, where the agent's own reports say it. */
  contextWindow?(model: string): number | undefined;
  /** The variables the agent sets in its shell tool, which mark a command run by the agent. */
  shellVariables: readonly string[];
  /**
   * The variable that carries the session id into the agent's shell tool, if any: a recap
   * command run there resolves the session's job, as the hook does.
   */
  sessionVariable?: string;
  /** Files that wire recap into the agent: the agent may read them, never change them. */
  settingsFiles(env: NodeJS.ProcessEnv, home: string): string[];
  /** The same files in a project, where the agent reads project settings. */
  projectSettingsFiles(project: string): string[];
  /** The settings files by shape, wherever they seem to be. */
  settingsNames: readonly SettingsName[];
  /** How the agent is started, and the switches and variables that start it without recap's hooks. */
  launch: AgentLaunch;
};

/** An empty answer: the agent goes on as if there were no hook. */
export const NOTHING: HookAnswer = { stdout: '', exitCode: 0 };

export const json = (value: unknown): HookAnswer => ({ stdout: JSON.stringify(value), exitCode: 0 });

/** A notice as `{"systemMessage": ...}`, shown to the user, which the agents with command hooks take. */
export const systemMessage = (text: string): HookAnswer => (text === '' ? NOTHING : json({ systemMessage: text }));

/** The answer with a `systemMessage` beside what it says, unless it has one or is no JSON object. */
export function withSystemMessage(answer: HookAnswer, text: string): HookAnswer {
  try {
    const output = JSON.parse(answer.stdout) as unknown;
    if (output === null || typeof output !== 'object' || Array.isArray(output) || 'systemMessage' in output) return answer;
    return { stdout: JSON.stringify({ ...output, systemMessage: text }), exitCode: answer.exitCode };
  } catch {
    return answer; // Plain text: left as it is.
  }
}

/** The answer with a notice for the user where the agent's format has room for it; the same answer where it has none. */
export function withNotice(facts: AgentFacts, answer: HookAnswer, text: string): HookAnswer {
  if (answer.stdout === '' && answer.exitCode === 0) return facts.notice(text);
  return facts.withNotice?.(answer, text) ?? answer;
}

/** A tool call, or a call of no known event: what a hook that fails or stays silent would let run, so it is denied. */
export const deniedUnjudged = (facts: AgentFacts, event: string | undefined): boolean => event === undefined || facts.events[event] === 'tool';

/**
 * The answer to a call recap cannot judge (unreadable, too large, unanswered). A tool call
 * (or a call of no known event) is denied, since silence would let it run; a prompt or a
 * session start is never blocked (the user must not be silenced), the user is told instead.
 */
export function refusal(facts: AgentFacts, event: string | undefined, why: string, advice: string): HookAnswer {
  if (deniedUnjudged(facts, event)) return facts.deny(`recap: ${why}, so this tool call was denied: ${advice}.`);
  return facts.notice(`recap: ${why}; this ${event} was not checked: ${advice}.`);
}
