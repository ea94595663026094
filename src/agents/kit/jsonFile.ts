// Reading an agent's JSON files: as the agent reads them (comments and a BOM where it allows
// them), each problem said with the file's name; the installers turn a problem into an
// InstallError that says what to do, the doctors into a failed check.
import { existsSync, readFileSync } from 'node:fs';
import type { HooksObject } from '../hookCommand.js';
import { InstallError } from './installError.js';
import { withoutComments } from './jsonComments.js';

/** How an agent writes JSON: `comments` as strip-json-comments reads them, `bom` a byte-order mark before the text. */
export type Dialect = { comments?: boolean; bom?: boolean };

/** Qwen Code's and Copilot CLI's settings: comments and a BOM allowed. */
export const JSONC: Dialect = { comments: true, bom: true };

export type Parsed<T> = { ok: true; value: T; comments: boolean } | { ok: false; problem: string; reason?: string };

export const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Why a parse or a read failed, on one line. */
export const reasonOf = (error: unknown): string => (error as Error).message.replace(/\s+/g, ' ');

/** A JSON file's value, or why it cannot be read (`reason`: the parser's or the file system's words); undefined when there is no file. */
export function parseJsonFile(file: string, { comments = false, bom = false }: Dialect = {}): Parsed<unknown> | undefined {
  if (!existsSync(file)) return undefined;
  try {
    let text = readFileSync(file, 'utf8');
    if (bom) text = text.replace(/^\uFEFF/, '');
    const stripped = comments ? withoutComments(text) : { json: text, comments: false };
    return { ok: true, value: JSON.parse(stripped.json) as unknown, comments: stripped.comments };
  } catch (error) {
    const reason = reasonOf(error);
    return { ok: false, problem: `cannot read ${file}: ${reason}`, reason };
  }
}

/** A JSON file's object, or why it is none; undefined when there is no file. */
export function readJsonObject(file: string, dialect: Dialect = {}): Parsed<Record<string, unknown>> | undefined {
  const read = parseJsonFile(file, dialect);
  if (read === undefined || !read.ok) return read;
  return isObject(read.value) ? { ...read, value: read.value } : { ok: false, problem: `${file} does not hold a JSON object` };
}

/** What a broken file's message ends with: recap wrote nothing, and the user can mend it. */
export const FIX_OR_MOVE = 'fix it or move it aside (recap changed nothing)';

/** A JSON value recap will write its hooks into: an object whose "hooks", if any, is an object too. */
export function hooksObject(file: string, value: unknown): HooksObject {
  if (!isObject(value)) throw new InstallError(`${file} does not hold a JSON object; ${FIX_OR_MOVE}`);
  if (value.hooks !== undefined && !isObject(value.hooks)) throw new InstallError(`"hooks" in ${file} is not an object; ${FIX_OR_MOVE}`);
  return value as HooksObject;
}

/** A JSON file's value as recap reads it before writing; undefined when there is no file. */
export function readJsonForWriting(file: string, dialect: Dialect = {}): { value: unknown; comments: boolean } | undefined {
  const read = parseJsonFile(file, dialect);
  if (read !== undefined && !read.ok) throw new InstallError(`${read.problem}; ${FIX_OR_MOVE}`);
  return read;
}

/** An agent's settings with recap's hooks in them, read before they are written: {} when there is no file. */
export function readSettingsFile(file: string, dialect: Dialect = {}): { settings: HooksObject; comments: boolean } {
  const read = readJsonForWriting(file, dialect);
  return read === undefined ? { settings: {}, comments: false } : { settings: hooksObject(file, read.value), comments: read.comments };
}
