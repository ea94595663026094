// A job's memory quality signals, as `recap report --quality` tells them: the job's totals,
// then one row per accepted summary, newest first, with what the sessions after it did
// (files looked up again, questions re-asked, corrections: a dot each, the count beside) and
// its task's tokens as a bar with its value. A summary's number shows its chain entry.
import { Latest, type QualityAnswer, type SummaryQuality } from './api.js';
import { failure, h, timeElement, tokens } from './dom.js';

type Totals = NonNullable<QualityAnswer['quality']>['totals'];
type Signal = 'rediscoveries' | 'reasked' | 'corrections';

const SVG = 'http://www.w3.org/2000/svg';
/** Dots drawn for a count; a larger count shows a plus after them (its number is beside). */
const DOTS = 10;
const DOT_STEP = 11;
const BAR_WIDTH = 160;
const ROW_HEIGHT = 12;

const WHAT =
  'Rediscoveries: files a summary named that a session after it read, grepped or globbed again in its first tool calls. ' +
  'Re-asked questions: questions to the user whose answer the chain already held. ' +
  'Corrections: early prompts that set the agent right about what the summary said. ' +
  'Tokens per task: the counted tokens from the summary to the next trip. Fewer of each is better.';

/** What a signal's title lists: each instance, with its session. */
const DETAIL: Record<Signal, (s: SummaryQuality) => string[]> = {
  rediscoveries: (s) => s.rediscoveries.map((r) => `${r.file} (session ${r.session})`),
  reasked: (s) => s.reasked.map((r) => `"${r.question}", answered by: ${r.answer} (session ${r.session})`),
  corrections: (s) => s.corrections.map((c) => `"${c.prompt}" (session ${c.session})`),
};

export class QualityPanel {
  readonly element = h('section', { class: 'quality', 'aria-labelledby': 'quality-title' });
  private readonly body = h('div', {});
  private readonly requests = new Latest();

  constructor(
    private readonly job: string,
    /** Shows the chain entry of the summary numbered `seq`. */
    private readonly reveal: (seq: number) => void,
  ) {
    this.element.append(h('h2', { id: 'quality-title' }, 'Did the memory work?'), h('p', { class: 'muted' }, WHAT), this.body);
  }

  load(): void {
    void this.requests
      .get<QualityAnswer>('/api/quality', { job: this.job })
      .then((answer) => answer && this.draw(answer))
      .catch((error: unknown) => this.body.replaceChildren(failure(error)));
  }

  private draw({ quality }: QualityAnswer): void {
    this.element.dataset.summaries = String(quality?.summaries.length ?? 0);
    if (quality === null || quality.summaries.length === 0) {
      this.body.replaceChildren(h('p', { class: 'muted empty', 'data-quality': 'empty' }, 'No summary accepted yet: the signals appear once a session follows one.'));
      return;
    }
    const newestFirst = [...quality.summaries].reverse();
    const widest = Math.max(1, ...newestFirst.map((s) => s.task.countedTokens));
    this.body.replaceChildren(
      totalsLine(quality.totals),
      ...(quality.totals.sessions === 0
        ? [
            h(
              'p',
              { class: 'muted', 'data-quality': 'unfollowed' },
              'No session has started after a summary yet: rediscoveries, re-asked questions and corrections appear once one does.',
            ),
          ]
        : []),
      h(
        'div',
        { class: 'table-wrap' },
        h(
          'table',
          { class: 'quality-table' },
          h('caption', { class: 'muted' }, 'Per summary, newest first'),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ...['Summary', 'Sessions after', 'Rediscovered', 'Re-asked', 'Corrections', 'Tokens per task'].map((label, i) =>
                h('th', { scope: 'col', class: i === 1 ? 'num' : undefined }, label),
              ),
            ),
          ),
          h('tbody', {}, ...newestFirst.map((summary) => this.row(summary, widest))),
        ),
      ),
    );
  }

  private row(summary: SummaryQuality, widest: number): HTMLElement {
    const link = h(
      'a',
      {
        href: `#/job/${encodeURIComponent(this.job)}`,
        title: 'Show it in the summary chain',
        onclick: (event: Event) => {
          event.preventDefault();
          this.reveal(summary.seq);
        },
      },
      `#${summary.seq}`,
    );
    return h(
      'tr',
      { 'data-seq': summary.seq },
      h('th', { scope: 'row' }, link, ' ', timeElement(summary.time), summary.gist ? h('span', { class: 'gist' }, summary.gist) : null),
      h('td', { class: 'num', 'data-signal': 'sessions' }, summary.sessions),
      ...(['rediscoveries', 'reasked', 'corrections'] as const).map((signal) => signalCell(signal, summary)),
      taskCell(summary, widest),
    );
  }
}

function totalsLine(totals: Totals): HTMLElement {
  const perTask = totals.tasks > 0 ? `${tokens(totals.taskTokens / totals.tasks)} tokens per task (${totals.tasks} ended)` : 'no task ended yet';
  return h(
    'p',
    { class: 'quality-totals', 'data-totals': '' },
    h('strong', {}, 'This job: '),
    `${totals.summaries} summaries · ${totals.sessions} sessions after them · `,
    h('span', { 'data-total': 'rediscoveries' }, `${totals.rediscoveries} files rediscovered`),
    ' · ',
    h('span', { 'data-total': 'reasked' }, `${totals.reasked} questions re-asked`),
    ' · ',
    h('span', { 'data-total': 'corrections' }, `${totals.corrections} corrections`),
    ` · ${perTask}`,
  );
}

/** A dot per instance (the count beside them), each instance in the title. */
function signalCell(signal: Signal, summary: SummaryQuality): HTMLElement {
  const count = summary[signal].length;
  const svg = document.createElementNS(SVG, 'svg');
  const shown = Math.min(count, DOTS);
  svg.setAttribute('width', String(Math.max(shown, 1) * DOT_STEP + (count > DOTS ? DOT_STEP : 0)));
  svg.setAttribute('height', String(ROW_HEIGHT));
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('class', `dots ${signal}`);
  for (let i = 0; i < shown; i += 1) {
    const dot = document.createElementNS(SVG, 'circle');
    dot.setAttribute('cx', String(i * DOT_STEP + DOT_STEP / 2));
    dot.setAttribute('cy', String(ROW_HEIGHT / 2));
    dot.setAttribute('r', '4');
    svg.append(dot);
  }
  if (count > DOTS) {
    const more = document.createElementNS(SVG, 'text');
    more.setAttribute('x', String(shown * DOT_STEP + 1));
    more.setAttribute('y', String(ROW_HEIGHT - 2));
    more.textContent = '+';
    svg.append(more);
  }
  const details = DETAIL[signal](summary);
  return h(
    'td',
    { class: count === 0 ? 'signal none' : 'signal', 'data-signal': signal, 'data-count': count, title: details.join('\n') || undefined },
    svg,
    h('span', { class: 'count' }, count),
  );
}

/** The task's counted tokens as a bar (the job's largest task is the full width), and its value. */
function taskCell(summary: SummaryQuality, widest: number): HTMLElement {
  const { countedTokens, interactions, ended } = summary.task;
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('width', String(BAR_WIDTH));
  svg.setAttribute('height', String(ROW_HEIGHT));
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('class', `task ${ended}`);
  const bar = document.createElementNS(SVG, 'rect');
  bar.setAttribute('width', String(Math.max((countedTokens / widest) * BAR_WIDTH, countedTokens > 0 ? 1 : 0)));
  bar.setAttribute('height', String(ROW_HEIGHT));
  bar.setAttribute('rx', '2');
  svg.append(bar);
  const end = ended === 'open' ? ' so far' : ended === 'summary' ? ', to the next summary' : '';
  return h(
    'td',
    { class: 'task', 'data-signal': 'tokens', 'data-tokens': countedTokens, 'data-ended': ended },
    svg,
    h('span', { class: 'count' }, `${tokens(countedTokens)} tokens`),
    h('span', { class: 'muted' }, ` · ${interactions} interactions${end}`),
  );
}
