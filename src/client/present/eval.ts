// recap eval's figures on the terminal: the whole corpus, then each profile and domain, then
// every misjudged case with the reasons it was rejected.
import type { Figures, Score, Verdict } from '../../events/evaluation.js';

const share = (n: number | null) => (n === null ? '-' : n.toFixed(3));
const size = (n: number | null) => (n === null ? '-' : String(n));

function row(name: string, f: Figures): string {
  const cells = [String(f.genuine), String(f.junk), share(f.precision), share(f.recall), size(f.memory.mean), size(f.memory.max)];
  return `${name.padEnd(22)}${cells.map((c) => c.padStart(10)).join('')}`;
}

export function evalText(result: Score & { corpus: string; verdicts: Verdict[] }): string {
  const { all, byProfile, byDomain, verdicts } = result;
  const lines = [
    `recap eval: ${all.genuine + all.junk} cases (${all.genuine} genuine, ${all.junk} junk) from ${result.corpus}`,
    'A rejected junk case is a positive: precision = junk rejected / all rejected, recall = junk rejected / all junk.',
    'Memory: what a next session is handed after an accepted summary, in tokens.',
    '',
    `${''.padEnd(22)}${['genuine', 'junk', 'precision', 'recall', 'mem mean', 'mem max'].map((c) => c.padStart(10)).join('')}`,
    row('all', all),
    ...Object.entries(byProfile).map(([name, f]) => row(`profile ${name}`, f)),
    ...Object.entries(byDomain).map(([name, f]) => row(`domain ${name}`, f)),
  ];
  const rejected = verdicts.filter((v) => v.label === 'genuine' && !v.accepted);
  const accepted = verdicts.filter((v) => v.label === 'junk' && v.accepted);
  if (rejected.length > 0) lines.push('', `Genuine rejected (${rejected.length}):`, ...rejected.map((v) => `  ${v.name}: ${v.problems.join('; ')}`));
  if (accepted.length > 0) lines.push('', `Junk accepted (${accepted.length}):`, ...accepted.map((v) => `  ${v.name}`));
  if (rejected.length + accepted.length === 0) lines.push('', 'Every case judged as labelled.');
  return lines.join('\n');
}

export function printEval(result: Score & { corpus: string; verdicts: Verdict[] }): void {
  process.stdout.write(`${evalText(result)}\n`);
}
