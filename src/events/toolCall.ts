// A tool call in recap's own terms, whatever agent asked for it: each agent's folder
// (src/agents/<name>) turns its tool names and fields into this, and the gate and the
// protection rules read nothing else.

/**
 * What a tool does, as far as recap's rules care. `read` and `search` only read; `write`,
 * `edit` and `patch` change the files they name; `shell` runs a command line; `question`
 * asks the user; `web` and `mcp` reach outside; `memory` is one of recap's own MCP tools,
 * which read the job's summaries (recapTools.ts); `other` is anything else.
 */
export type ToolKind = 'shell' | 'read' | 'search' | 'write' | 'edit' | 'patch' | 'question' | 'web' | 'mcp' | 'memory' | 'other';

export type ToolCall = {
  /** The agent's own name for the tool, for messages and the log. */
  name: string;
  kind: ToolKind;
  /** A shell tool's command line. */
  command?: string;
  /**
   * The command line is input typed into a shell session already running (Copilot CLI's
   * write_bash): the protection rules read it as a command line, but it is never the way
   * out, since the program that reads it may be anything the session started.
   */
  typedIntoSession?: true;
  /** The folder a shell command or a relative path is taken from, when the call names one. */
  dir?: string;
  /** The files and folders the call names (a patch's files, parsed out of its text). */
  paths: string[];
  /** A search by glob pattern, relative to the first of `paths` (else the folder). */
  glob?: string;
  /** A question tool's questions, as the user will read them. */
  questions?: string[];
  /** The input as the agent sent it: for a tool of unknown shape, any string in it that reads as a path is judged. */
  input?: unknown;
};

/** Kinds whose fields are known, so their `paths` are all the paths they touch. */
export const KNOWN_SHAPES: ReadonlySet<ToolKind> = new Set(['shell', 'read', 'search', 'write', 'edit', 'patch', 'memory']);

/** Kinds that only read what they name. */
export const READING: ReadonlySet<ToolKind> = new Set(['read', 'search']);

export const field = (input: unknown, key: string): unknown =>
  input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>)[key] : undefined;

/** The string values of the named fields, in order. */
export function strings(input: unknown, keys: readonly string[]): string[] {
  // One array, not a map and a filter: every tool call comes here.
  const found: string[] = [];
  for (const key of keys) {
    const value = field(input, key);
    if (typeof value === 'string' && value !== '') found.push(value);
  }
  return found;
}

/** The texts of a question tool's `questions: [{question}]`, as the user will read them. */
export function questionsOf(input: unknown): string[] {
  const questions = field(input, 'questions');
  return Array.isArray(questions) ? questions.map((q) => field(q, 'question')).filter((q): q is string => typeof q === 'string') : [];
}

/**
 * What Codex's patch parser trims off each line (Rust's char::is_whitespace: the Unicode
 * White_Space characters), and U+FEFF besides: trimming more can only name more files.
 */
const PAD = '[\\t-\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]';
const HEADER = new RegExp(`^${PAD}*\\*\\*\\* (?:Add File|Update File|Delete File|Move to): ?(.*?)${PAD}*$`, 'i');
const LEADING_PAD = new RegExp(`^${PAD}+`);

/**
 * The files a patch in the apply_patch format names: added, updated, deleted, and the
 * target of a move. Lines are read as they come; a malformed patch names what it names.
 * Read as Codex reads them (codex-rs apply-patch, 0.169.0): every header line trimmed, so an
 * indented header, or one ending in a tab or a no-break space, still names its file; the
 * path is the rest of the line after `: `, and that rest without its leading spaces is
 * judged too (Codex keeps them in the name; a stricter reading costs nothing).
 */
export function patchPaths(patch: string): string[] {
  const found = new Set<string>();
  // Codex splits at \n (a \r before it dropped); the other line breaks split here too: more
  // lines can only show more headers.
  for (const line of patch.split(/\r?\n|\r|\u2028|\u2029/)) {
    const rest = HEADER.exec(line)?.[1];
    if (rest === undefined) continue;
    for (const path of [rest, rest.replace(LEADING_PAD, '')]) if (path !== '') found.add(path);
  }
  return [...found];
}

/** One of recap's own MCP tools: it names no file (its query is words, not a path). */
export const memoryCall = (name: string, input: unknown): ToolCall => ({ name, kind: 'memory', paths: [], input });
