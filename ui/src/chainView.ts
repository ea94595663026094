// A job's summary chain: each summary with its gist, sections, tokens, level, what it covers,
// the files it names, its hash and the hash it links to, rollups holding what they roll up; above it, what
// `recap verify` says of the job (asked when the page opens and on the button: it replays
// the whole log), and the first broken link marked where there is one.
import { Latest, type ChainAnswer, type VerifyAnswer } from './api.js';
import { failure, h, tokens, when } from './dom.js';

type Entry = ChainAnswer['entries'][number];

/** Summaries shown until the user asks for the whole chain. */
const SHOWN = 50;

export class ChainPanel {
  readonly element = h('section', { class: 'chain', 'aria-labelledby': 'chain-title' });
  private readonly verdict = h('div', { class: 'verdict-slot' });
  private readonly list = h('div', {});
  private readonly chainRequests = new Latest();
  private readonly verifyRequests = new Latest();
  private entries: Entry[] = [];
  private total = 0;
  /** All of the chain, once asked for; else its newest SHOWN entries. */
  private whole = false;
  private verification: VerifyAnswer | undefined;

  constructor(private readonly job: string) {
    this.element.append(
      h('h2', { id: 'chain-title' }, 'Summary chain'),
      h('div', { class: 'toolbar' }, h('button', { type: 'button', onclick: () => this.load({ verify: true }) }, 'Verify again')),
      this.verdict,
      this.list,
    );
  }

  /** Reads the chain again, and with `verify` has the daemon verify the job. */
  load({ verify }: { verify: boolean }): void {
    void this.readChain();
    if (!verify) return;
    this.verdict.replaceChildren(h('p', { class: 'verdict muted' }, 'Verifying: replaying the log…'));
    void this.verifyRequests
      .get<VerifyAnswer>('/api/verify', { job: this.job })
      .then((answer) => {
        if (!answer) return;
        this.verification = answer;
        this.verdict.replaceChildren(verdict(answer));
        this.draw();
      })
      .catch((error: unknown) => this.verdict.replaceChildren(failure(error)));
  }

  /** Opens the summary numbered `seq`, the whole chain read first if it is not among the newest shown, and moves to it. */
  async reveal(seq: number): Promise<void> {
    const find = () => this.list.querySelector<HTMLElement>(`li[data-seq="${seq}"]`);
    if (find() === null && !this.whole) {
      this.whole = true;
      await this.readChain();
    }
    const item = find();
    if (item === null) return;
    const details = item.querySelector('details')!;
    details.open = true;
    item.scrollIntoView({ block: 'start' });
    details.querySelector('summary')!.focus({ preventScroll: true });
  }

  private async readChain(): Promise<void> {
    try {
      const answer = await this.chainRequests.get<ChainAnswer>('/api/chain', { job: this.job, last: this.whole ? undefined : SHOWN });
      if (!answer) return;
      this.entries = answer.entries;
      this.total = answer.total;
      this.draw();
    } catch (error) {
      this.list.replaceChildren(failure(error));
    }
  }

  private showAll(): void {
    this.whole = true;
    this.load({ verify: false });
  }

  private draw(): void {
    const problems = new Map<number, string>();
    for (const problem of this.verification?.problems ?? []) if (problem.seq !== undefined && !problems.has(problem.seq)) problems.set(problem.seq, problem.what);
    const hidden = this.total - this.entries.length;
    this.list.replaceChildren(
      ...(hidden > 0
        ? [
            h(
              'p',
              { class: 'muted' },
              `The newest ${this.entries.length} of ${this.total} summaries. `,
              h('button', { type: 'button', onclick: () => this.showAll() }, `Show all ${this.total}`),
            ),
          ]
        : []),
      tree(this.entries, problems),
    );
  }
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

/**
 * An entry as a rollup of its own chain names it: this machine's by its number, another
 * machine's (`recap sync`) by its number in that machine's log.
 */
const rollKey = (entry: Entry, seq = entry.origin === undefined ? entry.seq : entry.originSeq): string => `${entry.origin?.machine ?? ''}#${seq}`;
const rolledKeys = (entry: Entry): string[] => (entry.rolls ?? []).map((seq) => rollKey(entry, seq));

/** Whose entry it is, for another machine's: its git author, else its host. */
const originLabel = (entry: Entry): string | undefined => (entry.origin === undefined ? undefined : (entry.origin.author ?? entry.origin.host));

/** The chains oldest first, every machine's among them by time, each rollup holding the summaries it rolls up. */
function tree(entries: Entry[], problems: Map<number, string>): HTMLElement {
  if (entries.length === 0) return h('p', { class: 'muted' }, 'No summary accepted yet.');
  const byKey = new Map(entries.map((entry) => [rollKey(entry), entry]));
  const byHash = new Map(entries.map((entry) => [entry.hash, entry]));
  const rolled = new Set(entries.flatMap(rolledKeys));
  const item = (entry: Entry): HTMLElement => {
    const children = rolledKeys(entry)
      .map((key) => byKey.get(key))
      .filter((child): child is Entry => child !== undefined);
    return h(
      'li',
      { 'data-seq': entry.seq, 'data-broken': problems.has(entry.seq) ? 'true' : undefined, class: problems.has(entry.seq) ? 'broken' : undefined },
      summaryEntry(entry, problems.get(entry.seq), byHash.get(entry.prevHash)),
      children.length > 0 ? h('ol', { class: 'rolls', 'aria-label': `Rolled up by #${entry.seq}` }, ...children.map(item)) : null,
    );
  };
  return h('ol', { class: 'chain-list' }, ...entries.filter((entry) => !rolled.has(rollKey(entry))).map(item));
}

function summaryEntry(entry: Entry, problem: string | undefined, previous: Entry | undefined): HTMLElement {
  const details = h(
    'details',
    {},
    h(
      'summary',
      {},
      h('strong', {}, `#${entry.seq}`),
      entry.level > 0 ? h('span', { class: 'badge rollup' }, `rollup, level ${entry.level}`) : h('span', { class: 'badge' }, 'summary'),
      entry.topic !== undefined ? h('span', { class: 'badge topic' }, entry.topic) : null,
      entry.origin !== undefined ? h('span', { class: 'badge origin', title: `another machine's chain: ${entry.origin.host}` }, originLabel(entry)) : null,
      // Another machine's interaction numbers mean nothing here.
      ` ${tokens(entry.tokens)} tokens${entry.origin === undefined ? ` · covers through #${entry.coversThrough}` : ` · from ${entry.origin.host}`} · ${when(entry.time)}`,
      (entry.refs?.length ?? 0) > 0 ? ` · ${entry.refs!.length} files` : null,
      problem ? h('span', { class: 'problem' }, ` — ${problem}`) : null,
      h('span', { class: 'gist', 'data-gist-by': entry.gistBy }, entry.gist),
    ),
  );
  // The body is made when first opened: a long job's chain is thousands of entries.
  details.addEventListener('toggle', () => {
    if (details.open && details.childElementCount === 1) details.append(...summaryBody(entry, previous));
  });
  return details;
}

function summaryBody(entry: Entry, previous: Entry | undefined): HTMLElement[] {
  return [
    h(
      'dl',
      {},
      h('dt', {}, 'Hash'),
      h('dd', {}, h('code', {}, entry.hash)),
      h('dt', {}, 'Links to'),
      h('dd', {}, h('code', {}, entry.prevHash), previous ? ` (#${previous.seq})` : ''),
      h('dt', {}, 'Gist'),
      h('dd', {}, entry.gist, h('span', { class: 'muted' }, entry.gistBy === 'agent' ? ' (written by the agent)' : ' (derived by recap from the text)')),
      h('dt', {}, 'Sections'),
      h('dd', {}, h('ul', { class: 'sections' }, ...entry.sections.map((section) => h('li', {}, `${section.heading}: ${tokens(section.tokens)} tokens`)))),
      h('dt', {}, 'Files'),
      h('dd', {}, files(entry.refs ?? [])),
    ),
    h('pre', { class: 'text' }, entry.text),
  ];
}

type Reference = NonNullable<Entry['refs']>[number];

/** The files a summary names: `read` ones handed to the next session whole (or their lines), `ref` ones by name and reason. */
function files(refs: Reference[]): HTMLElement {
  if (refs.length === 0) return h('span', { class: 'muted' }, 'none named');
  return h(
    'ul',
    { class: 'refs' },
    ...refs.map((ref) =>
      h(
        'li',
        { 'data-mode': ref.mode },
        h('span', { class: `badge ${ref.mode}` }, ref.mode),
        ' ',
        h('code', { class: 'path' }, ref.path),
        ref.start !== undefined ? h('span', { class: 'range' }, ` lines ${ref.start}–${ref.end ?? ref.start}`) : null,
        h('span', { class: 'why' }, ` — ${ref.why}`),
        // A ref hands over the name only: its tokens are none.
        h('span', { class: 'muted', title: `sha256 ${ref.sha256}` }, `${ref.mode === 'read' ? ` · ${tokens(ref.tokens)} tokens` : ''} · sha256 ${ref.sha256.slice(0, 12)}`),
      ),
    ),
  );
}
