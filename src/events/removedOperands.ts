// The paths a line's commands move, remove or lock, whatever folder they are: the protection
// rules let a line name home or a folder it sits in (every command does), but `rm -rf ~`,
// `mv ~ /tmp/x` and `chmod 000 ~` take recap's files with them (protection.ts).
import { effectiveProgram, programName } from './runsRecap.js';
import type { SimpleCommand, WordToken } from './shellTokens.js';

/** Programs whose operands are removed, moved away or have their access changed. */
const REMOVERS = new Set(['rm', 'rmdir', 'unlink', 'shred', 'srm', 'trash', 'trash-put', 'mv', 'gmv', 'chmod', 'chown', 'chgrp', 'chattr', 'setfacl']);
/** Those whose first operand is not a path but a mode, an owner or attributes. */
const SETTING_FIRST = new Set(['chmod', 'chown', 'chgrp', 'chattr']);

/** The operands of the line's removers, moves and access changes (a move's destination left out). */
export function removedOperands(commands: readonly SimpleCommand[]): WordToken[] {
  const found: WordToken[] = [];
  for (const command of commands) {
    const { program, args } = effectiveProgram(command.words);
    const name = program === undefined ? '' : programName(program.value);
    if (!REMOVERS.has(name)) continue;
    let operands = args.filter((a) => !a.value.startsWith('-'));
    // chmod --reference=FILE takes no mode; a mode may start with a minus (chmod -w x), read as an option here: the paths stay.
    if (SETTING_FIRST.has(name) && !args.some((a) => a.value.startsWith('--reference'))) operands = operands.slice(1);
    // mv's last operand is where the others go, unless -t names it.
    if ((name === 'mv' || name === 'gmv') && !args.some((a) => /^(?:-[a-zA-Z]*t|--target-directory)/.test(a.value))) operands = operands.slice(0, -1);
    found.push(...operands);
  }
  return found;
}
