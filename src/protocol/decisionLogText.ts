// `decisions`' answer as people read it: the newest decisions whole, one line each, then the
// index of the older ones. One text for `recap decisions` and for the hook that runs that
// command for an agent whose shell cannot reach the daemon (src/daemon/wayOutInHook.ts).
import type { ResponseOf } from './protocol.js';

/** `day` writes an entry's date: the CLI's local zone, UTC in the hook. */
export function decisionLogText(answer: ResponseOf<'decisions'>, day: (ms: number) => string): string {
  const { total, decisions, index = [] } = answer;
  if (total === 0) return "no decisions yet: a summary's decisions section (Questions & Decisions, Key Decisions) lists them as - <decision> — <reason>";
  const lines = decisions.map(
    (d) =>
      `#${d.n}  ${day(d.time)}  ${d.decision} — ${d.reason}  (summary #${d.seq}${d.from !== undefined ? ` by ${d.from}` : ''}${d.supersededBy !== undefined ? `, as amended by #${d.supersededBy}` : ''}${d.topic !== undefined ? `, topic ${d.topic}` : ''})`,
  );
  return [
    `${total} decision${total === 1 ? '' : 's'}, newest first:`,
    ...lines,
    ...(index.length > 0 ? ['', `older decisions, one line each (recap show N prints summary #N whole):`, ...index] : []),
  ].join('\n');
}
