// `show`'s answer as people read it: summary #N whole, its place in the chain and the files it
// names. One text for `recap show N` and for the hook that runs that command for an agent
// whose shell cannot reach the daemon (src/daemon/wayOutInHook.ts).
import { referenceSpec } from '../events/summaryParts.js';
import type { ResponseOf } from './protocol.js';

/** How much of a sha256 a reference line shows: enough to tell two versions of a file apart. */
const SHA_PREFIX = 12;

/** `time` writes the summary's time: the CLI's local zone, UTC in the hook. */
export function shownSummary(answer: ResponseOf<'show'>, time: (ms: number) => string): string {
  const { entry, gist, gistBy, amendment, redaction } = answer;
  const { origin } = entry;
  const rolls = (entry.rolls ?? []).map((seq) => `#${seq}`).join(', ') + (origin === undefined ? '' : ` in its machine's log`);
  const refs = entry.refs ?? [];
  return [
    `summary #${entry.seq} of job ${entry.job}`,
    ...(origin !== undefined
      ? [
          `from: another machine's chain, ${origin.author !== undefined ? `${origin.author} on ` : ''}host ${origin.host} (machine ${origin.machine}), its summary #${entry.originSeq ?? '?'} there`,
        ]
      : []),
    `date: ${time(entry.time)}`,
    ...(entry.topic !== undefined ? [`topic: ${entry.topic}`] : []),
    `level: ${entry.level === 0 ? '0 (a summary)' : `${entry.level} (a rollup of ${rolls})`}`,
    `gist: ${gist} (${gistBy === 'agent' ? 'written by the agent' : 'derived by recap from the text'})`,
    origin === undefined ? `tokens: ${entry.tokens}, covering the interactions through #${entry.coversThrough}` : `tokens: ${entry.tokens}`,
    `hash: ${entry.hash} (links to ${entry.prevHash.slice(0, SHA_PREFIX)})`,
    ...(amendment !== undefined ? [amendedLine(entry.seq, amendment.seq, time(amendment.time), answer.original === true)] : []),
    ...(redaction !== undefined
      ? [`redacted: ${time(redaction.time)}${redaction.reason !== undefined ? ` (${redaction.reason})` : ''}; the original text is gone, its hash stays in the chain`]
      : []),
    '',
    entry.redacted ? '[the text was redacted]' : entry.text.trimEnd(),
    '',
    refs.length === 0 ? 'references: none' : `references (${refs.length}):`,
    ...(origin !== undefined && refs.length > 0 ? [`(paths on ${origin.host}: not read on this machine)`] : []),
    ...refs.map((r) => `- ${r.mode} ${referenceSpec(r)} — ${r.why} (sha256 ${r.sha256.slice(0, SHA_PREFIX)}, ${r.tokens} tokens)`),
  ].join('\n');
}

/** Whose text is shown: the amendment's (in force), or the original (`--original`, unless it is gone). */
function amendedLine(seq: number, amendment: number, time: string, original: boolean): string {
  return original
    ? `amended: by #${amendment} (${time}); this is the original text`
    : `amended: this is amendment #${amendment} (${time}), which supersedes the text summary #${seq} was accepted with (recap show ${seq} --original prints that)`;
}
