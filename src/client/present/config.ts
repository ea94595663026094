// `recap config show` and `recap config allow` as people read them.
import { existsSync } from 'node:fs';
import type { KeyChange } from '../../events/configPolicy.js';
import type { Allowed } from '../../protocol/answers.js';
import type { ConfigShown } from '../../protocol/protocol.js';
import { pendingLines, spelled } from './gate.js';

const write = (line: string): void => void process.stdout.write(`${line}\n`);

function changeLine(c: KeyChange): string {
  return `  ${c.key}: ${spelled(c.from)} -> ${spelled(c.to)} (${c.direction === 'stricter' ? 'stricter' : 'weakens the gate'})`;
}

/** The files, each value with its source, the problems (on stderr) and the changes that wait. */
export function printConfig(shown: ConfigShown): void {
  write(`user config: ${shown.userFile}${existsSync(shown.userFile) ? '' : ' (not there)'}`);
  write(`project config: ${shown.file}${existsSync(shown.file) ? '' : ' (not there)'}`);
  const width = Math.max(...Object.keys(shown.values).map((k) => k.length));
  for (const [key, value] of Object.entries(shown.values)) write(`${`${key}=${spelled(value)}`.padEnd(width + 24)} ${shown.sources[key] ?? 'default'}`);
  for (const problem of shown.problems) process.stderr.write(`config problem (the last good configuration is in force): ${problem}\n`);
  if (shown.userPending) for (const line of pendingLines(shown.userPending)) write(line);
  if (shown.pending) for (const line of pendingLines(shown.pending)) write(line);
}

/** What an approval did. */
export function printAllowed(allowed: Allowed): void {
  if (allowed.already && !existsSync(allowed.file)) return write(`there is no ${allowed.file}; nothing to approve`);
  if (allowed.already) return write(`${allowed.file} (sha256 ${allowed.hash.slice(0, 12)}) is already approved; nothing changed`);
  write(`approved ${allowed.file} (sha256 ${allowed.hash.slice(0, 12)})${allowed.changes.length > 0 ? '; now in force:' : '; it changes nothing in force'}`);
  for (const change of allowed.changes) write(changeLine(change));
  write('a later edit of the file needs a new approval before it can weaken the gate');
}

/** `recap config check`: ok, or nothing on stdout (the problems go to stderr). */
export function printChecked(files: string[], problems: string[], json: boolean): void {
  if (json) write(JSON.stringify({ files, ok: problems.length === 0, problems }, null, 2));
  else if (problems.length === 0) write(`ok: ${files.filter((f) => existsSync(f)).join(', ') || 'no config files; the defaults apply'}`);
  for (const problem of problems) process.stderr.write(`${problem}\n`);
}
