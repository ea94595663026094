// Search hits and timelines on the terminal (the text is shownHits.ts's): the matching words
// in bold on a terminal unless NO_COLOR is set; piped output has no escape codes, and
// `--json` names the words that matched.
import type { ResponseOf } from '../../protocol/protocol.js';
import { shownHits, shownTimeline } from '../../protocol/shownHits.js';
import { localTime } from '../time.js';

/** Whether matches are shown in bold: on a terminal, unless NO_COLOR is set. */
export function boldMatches(stream: { isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && (env.NO_COLOR ?? '') === '';
}

export function printHits(result: ResponseOf<'search'>, query: string, allJobs: boolean): void {
  process.stdout.write(`${shownHits(result, { query, allJobs, recap: 'recap' }, localTime, boldMatches())}\n`);
}

export function printTimeline(result: ResponseOf<'timeline'>): void {
  process.stdout.write(`${shownTimeline(result, localTime)}\n`);
}
