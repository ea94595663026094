// What every agent's doctor asks of recap's hooks: found in each settings file (a file that
// cannot be read is a failed check of its own), one for every event recap needs, and each able
// to run; the answer one check, its problems joined.
import type { Check } from '../../common/check.js';

/**
 * recap's hooks in each file (`hooksIn` reads one, throwing when it cannot), and a failed
 * check for each file that cannot be read.
 */
export function findHooks<F extends { file: string }, H>(name: string, files: readonly F[], hooksIn: (file: string) => H[]): { found: (F & H)[]; checks: Check[] } {
  const found: (F & H)[] = [];
  const checks: Check[] = [];
  for (const place of files) {
    try {
      for (const hit of hooksIn(place.file)) found.push({ ...place, ...hit });
    } catch (error) {
      checks.push({ name, ok: false, detail: (error as Error).message, fix: `repair the JSON in ${place.file}` });
    }
  }
  return { found, checks };
}

/**
 * What is wrong with the hooks found: each event recap needs without one (only once any is
 * found: none at all is said elsewhere), then each hook `problem` finds fault with.
 */
export function hookFaults<F extends { file: string; event: string }>(events: readonly string[], found: readonly F[], problem: (hook: F) => string | undefined): string[] {
  const missing = found.length === 0 ? [] : events.filter((event) => !found.some((f) => f.event === event));
  const broken = found.flatMap((f) => {
    const said = problem(f);
    return said ? [`${f.event} in ${f.file}: ${said}`] : [];
  });
  return [...missing.map((event) => `no ${event} hook`), ...broken];
}

/** One check: `fine` when there is no problem, else the problems and what to do. */
export function checkOf(name: string, problems: readonly string[], fine: string, fix: string): Check {
  return problems.length === 0 ? { name, ok: true, detail: fine } : { name, ok: false, detail: problems.join('; '), fix };
}
