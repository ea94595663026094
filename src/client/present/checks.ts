// `recap doctor`'s lines: what was checked, whether it is right, and the fix when not; with
// --fix, what it changed first.
import type { Check } from '../../common/check.js';

export type { Check };

export function printChecks(checks: Check[]): void {
  for (const c of checks) {
    process.stdout.write(`${c.ok ? 'ok  ' : 'FAIL'}  ${c.name.padEnd(13)} ${c.detail}${c.fix ? `\n      fix: ${c.fix}` : ''}\n`);
  }
}

export function printFixed(changed: string[]): void {
  if (changed.length === 0) process.stdout.write('fixed: nothing recap can fix by itself needed it\n');
  for (const line of changed) process.stdout.write(`fixed ${line}\n`);
}
