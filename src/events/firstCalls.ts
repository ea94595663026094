// A session's first tool calls, kept for the quality signals (qualitySignals.ts): what a
// session looked at before anything else tells whether the summary it was handed spared it
// the search. Recorded once per session, never per call, so the hook path appends nothing.
import { isAbsolute, join, normalize } from 'node:path/posix';
import type { RecordFirstCalls } from './commands.js';
import type { Decision } from './decision.js';
import type { SampledCall } from './eventParts.js';
import { simpleCommands, tokenize } from './shellTokens.js';
import type { ToolCall } from './toolCall.js';

/**
 * How many of a session's first tool calls are kept. An agent that has to find its way again
 * does it at once: its first calls are reads, greps and globs of the files it works on, and
 * twenty covers that opening (a few searches and the reads they lead to, with room for a
 * build or a test) while staying before the session's own new work reads the same files
 * for reasons no summary could have spared.
 */
export const FIRST_CALLS = 20;

/** The most paths kept of one call (a patch may name hundreds; the first ones say what it is). */
const MAX_PATHS = 16;

/** Words of a shell command line that may name a file: a slash or a dot in them, no option. */
const PATH_WORD = /^[^-][^\s]*[./][^\s]*$/;

const resolved = (path: string, dir: string | undefined): string => normalize(isAbsolute(path) || dir === undefined ? path : join(dir, path));

/** One call as the signals read it: its paths absolute (from `dir`, else the caller's folder), a shell command's program and path-like words. */
export function sampledCall(call: ToolCall, cwd: string | undefined): SampledCall {
  const dir = call.dir !== undefined ? resolved(call.dir, cwd) : cwd;
  const named = [...call.paths];
  let program: string | undefined;
  if (call.kind === 'shell' && call.command !== undefined) {
    // Read as the gate reads a command line (shellTokens.ts): quotes removed, every simple command's words.
    const tokens = tokenize(call.command);
    const commands = tokens.ok ? simpleCommands(tokens.tokens) : [];
    program = commands[0]?.words[0]?.value.split('/').at(-1);
    for (const command of commands) named.push(...command.words.slice(1).flatMap((w) => (PATH_WORD.test(w.value) ? [w.value] : [])));
  }
  const paths = [...new Set(named.slice(0, MAX_PATHS).map((p) => resolved(p, dir)))];
  return { kind: call.kind, paths, ...(call.glob !== undefined ? { glob: call.glob } : {}), ...(program !== undefined ? { program } : {}) };
}

/** The session's first calls go on record as they are; an empty list records nothing. */
export function recordFirstCalls(command: RecordFirstCalls): Decision<{ recorded: boolean }> {
  const { job, session, agent, calls, now } = command;
  if (calls.length === 0) return { answer: { recorded: false }, events: [] };
  return {
    answer: { recorded: true },
    events: [{ type: 'FirstCallsRecorded', data: { job, session, ...(agent !== undefined ? { agent } : {}), calls: calls.slice(0, FIRST_CALLS), time: now } }],
  };
}
