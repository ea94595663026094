// One line of `recap doctor`: what was checked, whether it is right, and the fix when not.
import type { Check } from '../common/check.js';

export type { Check };

export function printChecks(checks: Check[]): void {
  for (const c of checks) {
    process.stdout.write(`${c.ok ? 'ok  ' : 'FAIL'}  ${c.name.padEnd(13)} ${c.detail}${c.fix ? `\n      fix: ${c.fix}` : ''}\n`);
  }
}
