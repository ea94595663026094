// #/job/<name> — one job: where its gate stands now, its token meter over a range the user
// picks (a preset, zooming in and out, or a drag across the chart), what happened under the
// cursor, its state at any moment on the slider (what `recap replay --at` answers), its
// sessions, how well its summaries served the sessions after them, and its summary chain.
import { Latest, type AtAnswer, type JobAnswer, type LiveChange, type MomentsAnswer } from './api.js';
import { ChainPanel } from './chainView.js';
import { SessionsPanel } from './sessionsView.js';
import { debounce, failure, h, tokens, when } from './dom.js';
import { gate } from './jobsView.js';
import { MeterChart, meterKey, type Range } from './meterChart.js';
import { momentList } from './moments.js';
import { QualityPanel } from './qualityView.js';
import type { View } from './view.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The range buttons: a window ending at the job's last event, or all of it. */
const WINDOWS: { label: string; last?: number }[] = [
  { label: 'All' },
  { label: '30 days', last: 30 * DAY },
  { label: '7 days', last: 7 * DAY },
  { label: '1 day', last: DAY },
  { label: '1 hour', last: HOUR },
];
/** The narrowest range zooming in goes to. */
const MIN_RANGE_MS = 60_000;

/** What is shown: a window that follows the job's end, or a fixed range the user zoomed to. */
type Shown = { last?: number } | Range;

export class JobView implements View {
  private shown: Shown = {};
  private answer: JobAnswer | undefined;
  private readonly meterRequests = new Latest();
  private readonly atRequests = new Latest();
  private readonly momentRequests = new Latest();
  private readonly chart = new MeterChart({ zoom: (range) => this.showRange(range), hover: debounce((time, span) => void this.around(time, span), 120) });
  private readonly status = h('p', { class: 'status', 'data-status': '' });
  private readonly buttons = h('div', { class: 'toolbar', role: 'group', 'aria-label': 'Range' });
  private readonly slider = h('input', { type: 'range', id: 'at', min: 0, max: 0, step: 1000 });
  private readonly atOutput = h('output', { for: 'at', 'aria-live': 'polite' });
  private readonly moments = h('div', { class: 'moments', 'aria-live': 'polite' });
  private readonly chain: ChainPanel;
  private readonly sessions: SessionsPanel;
  private readonly quality: QualityPanel;
  private closed = false;

  constructor(private readonly job: string) {
    this.chain = new ChainPanel(job);
    this.sessions = new SessionsPanel(job);
    this.quality = new QualityPanel(job, (seq) => void this.chain.reveal(seq));
  }

  async show(main: HTMLElement): Promise<void> {
    document.title = `${this.job} · recap`;
    this.slider.addEventListener(
      'input',
      debounce(() => void this.at(Number(this.slider.value)), 150),
    );
    main.append(
      h('p', { class: 'crumbs' }, h('a', { href: '#/' }, 'Jobs'), ' / '),
      h('h1', {}, this.job),
      this.status,
      this.buttons,
      this.chart.element,
      meterKey(),
      h(
        'div',
        { class: 'panels' },
        h('section', { 'aria-labelledby': 'at-title' }, h('h2', { id: 'at-title' }, h('label', { for: 'at' }, 'State at a moment')), this.slider, this.atOutput),
        h('section', { 'aria-labelledby': 'moments-title' }, h('h2', { id: 'moments-title' }, 'What happened there'), this.moments),
      ),
      this.sessions.element,
      this.quality.element,
      this.chain.element,
    );
    this.moments.append(h('p', { class: 'muted' }, 'Hover the chart, or move the slider, to see the interactions, trips, summaries and denials at that moment.'));
    await this.load();
    this.chain.load({ verify: true });
    this.sessions.load();
    this.quality.load();
  }

  changed(change: LiveChange): void {
    if (!change.jobs.includes(this.job)) return;
    this.refresh();
    this.sessions.load();
    this.quality.load();
  }

  refresh(): void {
    this.showRange(this.shown);
  }

  close(): void {
    this.closed = true;
    this.chart.close();
  }

  /** Shows `shown` from now on, and draws it when the daemon answers (a failure is said in the status line). */
  private showRange(shown: Shown): void {
    this.shown = shown;
    void this.load().catch((error: unknown) => this.status.replaceChildren(failure(error)));
  }

  private async load(): Promise<void> {
    const answer = await this.meterRequests.get<JobAnswer>('/api/job', { job: this.job, width: this.chart.width(), ...this.shown });
    if (this.closed || !answer) return;
    // The chain is read again only when it grew (a long job's chain is large).
    if (this.answer && this.answer.now.summaries !== answer.now.summaries) this.chain.load({ verify: false });
    this.answer = answer;
    this.drawStatus(answer);
    this.drawButtons();
    if (answer.span && answer.range) {
      this.chart.draw(answer, answer.range);
      const following = Number(this.slider.max) === 0 || Number(this.slider.value) >= Number(this.slider.max);
      this.slider.min = String(answer.span.first);
      this.slider.max = String(answer.span.last);
      if (following) this.slider.value = this.slider.max;
    }
  }

  private drawStatus({ now, threshold }: JobAnswer): void {
    this.status.replaceChildren(
      gate(now.tripped, now.reason),
      ` ${tokens(now.unsummarizedTokens)} of ${tokens(threshold)} tokens unsummarized (${now.unsummarizedInteractions} interactions) · ${now.summaries} summaries · ${now.denials} denials · ${now.rejections} rejected`,
    );
  }

  private drawButtons(): void {
    const range = this.answer?.range;
    const zoomed = 'from' in this.shown;
    const button = (label: string, pressed: boolean | undefined, onclick: () => void) =>
      h('button', { type: 'button', 'aria-pressed': pressed === undefined ? undefined : String(pressed), onclick }, label);
    this.buttons.replaceChildren(
      ...WINDOWS.map((window) =>
        button(window.label, !zoomed && (this.shown as { last?: number }).last === window.last, () => this.showRange(window.last === undefined ? {} : { last: window.last })),
      ),
      ...(range ? [button('Zoom in', undefined, () => this.showRange(scaled(range, 0.5))), button('Zoom out', undefined, () => this.showRange(scaled(range, 2)))] : []),
      ...(zoomed ? [h('span', { class: 'muted' }, `${when((this.shown as Range).from)} – ${when((this.shown as Range).to)}`)] : []),
      h('span', { class: 'muted hint' }, 'Drag across the chart to zoom.'),
    );
  }

  /** The job's state at `time`, as `recap replay --at` tells it, and what happened around then. */
  private async at(time: number): Promise<void> {
    this.chart.mark(time);
    const range = this.answer?.range;
    if (range) void this.around(time, ((range.to - range.from) / this.chart.width()) * 3);
    try {
      const answer = await this.atRequests.get<AtAnswer>('/api/job/at', { job: this.job, time });
      if (this.closed || !answer) return;
      const { seq, status } = answer;
      this.atOutput.dataset.seq = String(seq);
      this.atOutput.replaceChildren(
        h('strong', {}, when(time)),
        ` (after event #${seq}): `,
        status ? gate(status.tripped, status.reason) : 'no events yet',
        status ? ` ${tokens(status.unsummarizedTokens)} tokens unsummarized · ${status.summaries} summaries · ${status.denials} denials` : '',
      );
    } catch (error) {
      this.atOutput.replaceChildren(failure(error));
    }
  }

  private async around(time: number, span: number): Promise<void> {
    try {
      const answer = await this.momentRequests.get<MomentsAnswer>('/api/job/moments', { job: this.job, from: Math.floor(time - span), to: Math.ceil(time + span) });
      if (!this.closed && answer) this.moments.replaceChildren(momentList(answer, time));
    } catch (error) {
      this.moments.replaceChildren(failure(error));
    }
  }
}

/** `range` around its middle, `factor` times as long (never under a minute). */
function scaled(range: Range, factor: number): Range {
  const middle = (range.from + range.to) / 2;
  const half = Math.max(((range.to - range.from) * factor) / 2, MIN_RANGE_MS / 2);
  return { from: Math.floor(middle - half), to: Math.ceil(middle + half) };
}
