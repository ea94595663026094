// How recap writes an agent's files: whole or not at all (common/wholeFile.ts), the folder
// made first, the mode the user gave the file kept, and the temporary file named for recap.
import { existsSync, mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeWhole } from '../../common/wholeFile.js';

/** The path a symlink names (the path itself when it names nothing yet). */
export function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** A file's permissions now, or `otherwise` when there is no file. */
export const modeOf = (file: string, otherwise = 0o644): number => (existsSync(file) ? statSync(file).mode & 0o777 : otherwise);

export type AgentWrite = {
  /** The file's permissions; by default those it has now (0644 for a new file). */
  mode?: number;
  /** Set `mode` as it is, past the umask: a file that holds a token. */
  exact?: boolean;
  /** Write into the real file a symlink names, not over the link. */
  throughLinks?: boolean;
  /** The temporary file, when it must not sit beside the file under the file's own name. */
  temporary?: string;
};

/** Writes an agent's file through a temporary file and a rename: the agent never reads half a file, and a crash never leaves one. */
export function writeAtomically(file: string, text: string, { mode, exact = false, throughLinks = false, temporary }: AgentWrite = {}): void {
  const target = throughLinks ? realOr(file) : file;
  mkdirSync(dirname(target), { recursive: true });
  writeWhole(target, text, { mode: mode ?? modeOf(target), exact, temporary: temporary ?? `${target}.recap-${process.pid}.tmp` });
}

/** Writes the file only when its text differs; whether it did. */
export function writeIfChanged(file: string, text: string, options: AgentWrite = {}): boolean {
  if (existsSync(file) && readFileSync(file, 'utf8') === text) return false;
  writeAtomically(file, text, options);
  return true;
}

/** An object as recap writes an agent's JSON: two spaces, a newline at the end. */
export const jsonText = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
