// The configuration in force, on record: a ConfigApplied whenever a job's configuration (or
// the user-wide one) differs from the last one recorded for it, so the log says under which
// rules every later event was decided. Pure: the daemon hands in what is on record.
import { canonicalJson } from './canonical.js';
import type { ApplyConfig } from './commands.js';
import type { Decision } from './decision.js';

/**
 * A job's configuration (no job: the user-wide one) is recorded when it differs from the last
 * on record for it; a job without a record of its own follows the user-wide record, and a
 * job whose configuration is the user's in force needs none.
 */
export function applyConfig(command: ApplyConfig): Decision<{ applied: boolean }> {
  const { job, values, sources, recorded, userRecorded, userValues, now } = command;
  if (sameValues(recorded ?? userRecorded, values)) return { answer: { applied: false }, events: [] };
  if (job !== undefined && recorded === undefined && userValues !== undefined && sameValues(userValues, values)) return { answer: { applied: false }, events: [] };
  return { answer: { applied: true }, events: [{ type: 'ConfigApplied', data: { ...(job !== undefined ? { job } : {}), values: { ...values }, sources, time: now } }] };
}

/** Whether two configurations hold the same values. */
export function sameValues(a: Record<string, unknown> | undefined, b: Record<string, unknown>): boolean {
  return a !== undefined && (a === b || canonicalOf(a) === canonicalOf(b));
}

/** Configurations are never changed in place, so each one's canonical form is made once. */
const canonicalForms = new WeakMap<Record<string, unknown>, string>();

function canonicalOf(config: Record<string, unknown>): string {
  let form = canonicalForms.get(config);
  if (form === undefined) {
    form = canonicalJson(config);
    canonicalForms.set(config, form);
  }
  return form;
}
