// A job's summary chain: each summary with its sections, tokens, level, what it covers, its
// hash and the hash it links to, rollups holding what they roll up; above it, what
// `recap verify` says of the job, and the first broken link marked where there is one.
import { get, type ChainAnswer, type VerifyAnswer } from './api.js';
import { failure, h, tokens, when } from './dom.js';

type Entry = ChainAnswer['entries'][number];

export async function chainSection(job: string): Promise<Node[]> {
  const title = h('h2', { id: 'chain-title' }, 'Summary chain');
  let chain: ChainAnswer;
  let verify: VerifyAnswer;
  try {
    [chain, verify] = await Promise.all([get<ChainAnswer>('/api/chain', { job }), get<VerifyAnswer>('/api/verify', { job })]);
  } catch (error) {
    return [title, failure(error)];
  }
  const problems = new Map<number, string>();
  for (const problem of verify.problems) if (problem.seq !== undefined && !problems.has(problem.seq)) problems.set(problem.seq, problem.what);
  return [title, verdict(verify), tree(chain.entries, problems)];
}

function verdict(verify: VerifyAnswer): HTMLElement {
  if (verify.ok) {
    return h('p', { class: 'verdict ok', 'data-verify': 'ok' }, `Verified: ${verify.summaries} summaries, every hash and link intact, ${tokens(verify.events)} events replayed.`);
  }
  const first = verify.problems[0];
  return h(
    'div',
    { class: 'verdict broken', 'data-verify': 'broken', role: 'alert' },
    h('p', {}, h('strong', {}, 'The chain does not verify. '), first ? `First problem${first.seq !== undefined ? ` at #${first.seq}` : ''}: ${first.what}` : ''),
    verify.problems.length > 1 ? h('p', {}, `${verify.problems.length - 1} more; recap verify lists them all.`) : null,
  );
}

/** The chain oldest first, each rollup holding the summaries it rolls up. */
function tree(entries: Entry[], problems: Map<number, string>): HTMLElement {
  if (entries.length === 0) return h('p', { class: 'muted' }, 'No summary accepted yet.');
  const bySeq = new Map(entries.map((entry) => [entry.seq, entry]));
  const rolled = new Set(entries.flatMap((entry) => entry.rolls ?? []));
  const item = (entry: Entry): HTMLElement => {
    const children = (entry.rolls ?? []).map((seq) => bySeq.get(seq)).filter((child): child is Entry => child !== undefined);
    return h(
      'li',
      { 'data-seq': entry.seq, 'data-broken': problems.has(entry.seq) ? 'true' : undefined, class: problems.has(entry.seq) ? 'broken' : undefined },
      summaryEntry(entry, problems.get(entry.seq), bySeq),
      children.length > 0 ? h('ol', { class: 'rolls', 'aria-label': `Rolled up by #${entry.seq}` }, ...children.map(item)) : null,
    );
  };
  return h('ol', { class: 'chain-list' }, ...entries.filter((entry) => !rolled.has(entry.seq)).map(item));
}

function summaryEntry(entry: Entry, problem: string | undefined, bySeq: Map<number, Entry>): HTMLElement {
  const previous = [...bySeq.values()].find((other) => other.hash === entry.prevHash);
  return h(
    'details',
    {},
    h(
      'summary',
      {},
      h('strong', {}, `#${entry.seq}`),
      entry.level > 0 ? h('span', { class: 'badge rollup' }, `rollup, level ${entry.level}`) : h('span', { class: 'badge' }, 'summary'),
      entry.topic !== undefined ? h('span', { class: 'badge topic' }, entry.topic) : null,
      ` ${tokens(entry.tokens)} tokens · covers through #${entry.coversThrough} · ${when(entry.time)}`,
      problem ? h('span', { class: 'problem' }, ` — ${problem}`) : null,
    ),
    h(
      'dl',
      {},
      h('dt', {}, 'Hash'),
      h('dd', {}, h('code', {}, entry.hash)),
      h('dt', {}, 'Links to'),
      h('dd', {}, h('code', {}, entry.prevHash), previous ? ` (#${previous.seq})` : ''),
      h('dt', {}, 'Sections'),
      h('dd', {}, h('ul', { class: 'sections' }, ...entry.sections.map((section) => h('li', {}, `${section.heading}: ${tokens(section.tokens)} tokens`)))),
    ),
    h('pre', { class: 'text' }, entry.text),
  );
}
