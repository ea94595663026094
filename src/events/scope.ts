// Where recap acts: everywhere (SCOPE=all), or only in projects the user marked with a `.recap/`
// folder (SCOPE=marked). A job recap has recorded anything for stays in scope when its folder
// goes: removing `.recap/` must not let an agent out of a gate it is held by.
import type { JobState } from './jobState.js';

export type Scope = 'all' | 'marked';

/** The scope in force: the config's SCOPE when a file sets it, else RECAP_SCOPE from the daemon's environment. */
export function scopeInForce(configured: Scope, setByFile: boolean, fromEnv: string | undefined): Scope {
  if (setByFile) return configured;
  return fromEnv === 'marked' ? 'marked' : configured;
}

/** Whether the job holds anything recorded: an interaction, a summary, a tripped gate. */
export function jobKnown(state: JobState): boolean {
  return state.pending.length > 0 || state.chain.length > 0 || state.gate.tripped;
}

/** Whether recap acts on a hook call of this job: counts, records, gates. */
export function actsOn(scope: Scope, marked: () => boolean, known: () => boolean): boolean {
  return scope === 'all' || known() || marked();
}
