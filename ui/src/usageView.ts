// #/usage — the model's tokens per agent and model over time, as `recap report` counts them:
// one line per agent and model, per hour or day, and their totals.
import uPlot from 'uplot';
import { Latest, type LiveChange, type UsageAnswer, type UsageSeries } from './api.js';
import { cssColor, h, tokens } from './dom.js';
import type { View } from './view.js';

const PALETTE = ['--series-1', '--series-2', '--series-3', '--series-4', '--series-5', '--series-6'];

export class UsageView implements View {
  private bucket: 'hour' | 'day' = 'day';
  private plot: uPlot | undefined;
  private readonly buttons = h('div', { class: 'toolbar', role: 'group', 'aria-label': 'Sum per' });
  private readonly figure = h('figure', { class: 'usage', 'aria-label': 'Model tokens over time' });
  private readonly totals = h('div', { class: 'table-wrap' });
  private readonly requests = new Latest();
  private closed = false;

  async show(main: HTMLElement): Promise<void> {
    document.title = 'Usage · recap';
    main.append(
      h('h1', {}, 'Model usage'),
      h('p', { class: 'muted' }, 'Input and output tokens the agents reported, per agent and model (recap report).'),
      this.buttons,
      this.figure,
      this.totals,
    );
    await this.load();
  }

  changed(_change: LiveChange): void {
    this.refresh();
  }

  refresh(): void {
    void this.load().catch(() => undefined);
  }

  close(): void {
    this.closed = true;
    this.plot?.destroy();
  }

  private async load(): Promise<void> {
    const answer = await this.requests.get<UsageAnswer>('/api/usage', { bucket: this.bucket });
    if (this.closed || !answer) return;
    const { series } = answer;
    this.buttons.replaceChildren(
      ...(['hour', 'day'] as const).map((bucket) =>
        h('button', { type: 'button', 'aria-pressed': String(bucket === this.bucket), onclick: () => ((this.bucket = bucket), void this.load()) }, `per ${bucket}`),
      ),
    );
    this.figure.dataset.series = String(series.length);
    this.plot?.destroy();
    this.plot = undefined;
    this.figure.replaceChildren();
    if (series.length === 0) {
      this.figure.append(h('p', { class: 'muted empty' }, 'No usage reported yet: agents report it with their turns (recap report tells which do).'));
      this.totals.replaceChildren();
      return;
    }
    this.plot = new uPlot(options(series, Math.max(this.figure.clientWidth, 320)), aligned(series), this.figure);
    this.totals.replaceChildren(totalsTable(series));
  }
}

/** Every series on one time axis, null where a series has no bucket. */
function aligned(series: UsageSeries[]): uPlot.AlignedData {
  const times = [...new Set(series.flatMap((s) => s.points.map((p) => p.time)))].sort((a, b) => a - b);
  return [
    times,
    ...series.map((s) => {
      const at = new Map(s.points.map((p) => [p.time, p.input + p.output]));
      return times.map((time) => at.get(time) ?? null);
    }),
  ];
}

function options(series: UsageSeries[], width: number): uPlot.Options {
  const axis = { stroke: cssColor('--text'), grid: { stroke: cssColor('--grid'), width: 1 }, ticks: { stroke: cssColor('--grid'), width: 1 } };
  return {
    width,
    height: 280,
    ms: 1,
    scales: { x: { time: true } },
    axes: [axis, { ...axis, size: 70 }],
    series: [
      { label: 'Time' },
      ...series.map((s, i) => ({ label: `${s.agent} · ${s.model}`, stroke: cssColor(PALETTE[i % PALETTE.length]!), width: 2, points: { show: true, size: 5 }, spanGaps: false })),
    ],
  };
}

function totalsTable(series: UsageSeries[]): HTMLElement {
  const sum = (s: UsageSeries, key: 'input' | 'output' | 'cacheCreation' | 'cacheRead') => s.points.reduce((total, p) => total + p[key], 0);
  return h(
    'table',
    { class: 'totals' },
    h(
      'thead',
      {},
      h('tr', {}, ...['Agent', 'Model', 'Input', 'Output', 'Cache written', 'Cache read'].map((label, i) => h('th', { scope: 'col', class: i > 1 ? 'num' : undefined }, label))),
    ),
    h(
      'tbody',
      {},
      ...series.map((s) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, s.agent),
          h('td', {}, s.model),
          ...(['input', 'output', 'cacheCreation', 'cacheRead'] as const).map((key) => h('td', { class: 'num' }, tokens(sum(s, key)))),
        ),
      ),
    ),
  );
}
