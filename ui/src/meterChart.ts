// The token meter as uPlot draws it: unsummarized tokens over time (a sawtooth that drops at
// each accepted summary), the threshold as a line, and the marks uPlot has no series for,
// drawn on its canvas: trips (triangles), summaries (the drop, a dot; a diamond for a
// rollup) and denials (ticks along the bottom). Dragging across it zooms; hovering tells the
// time under the cursor.
import uPlot from 'uplot';
import type { JobAnswer } from './api.js';
import { cssColor, h } from './dom.js';

export type Range = { from: number; to: number };

type Listeners = {
  /** The user dragged across the chart: show this range. */
  zoom(range: Range): void;
  /** The cursor is at `time`; `span` is the time one pixel or so covers. */
  hover(time: number, span: number): void;
};

const HEIGHT = 320;

export class MeterChart {
  readonly element: HTMLElement;
  private plot: uPlot | undefined;
  private answer: JobAnswer | undefined;
  private range: Range | undefined;
  private moment: number | undefined;
  private readonly resize = new ResizeObserver(() => this.plot?.setSize({ width: this.width(), height: HEIGHT }));
  private readonly scheme = matchMedia('(prefers-color-scheme: dark)');
  private readonly rebuild = () => this.answer && this.range && this.draw(this.answer, this.range);

  constructor(private readonly listeners: Listeners) {
    this.element = h('figure', { class: 'meter', 'aria-label': 'Unsummarized tokens over time' });
    this.resize.observe(this.element);
    this.scheme.addEventListener('change', this.rebuild);
  }

  /** The chart's width in CSS pixels: what the daemon downsamples to. */
  width(): number {
    return Math.max(this.element.clientWidth, 320);
  }

  draw(answer: JobAnswer, range: Range): void {
    this.answer = answer;
    this.range = range;
    const { meter, trips, summaries, denials } = answer;
    Object.assign(this.element.dataset, {
      points: String(meter.t.length),
      trips: String(trips.length),
      drops: String(summaries.filter((s) => s.after < s.before).length),
      denials: String(denials.reduce((sum, d) => sum + d.count, 0)),
      from: String(range.from),
      to: String(range.to),
    });
    this.plot?.destroy();
    this.plot = undefined;
    if (meter.t.length === 0) {
      this.element.replaceChildren(h('p', { class: 'muted empty' }, 'No interactions in this range.'));
      return;
    }
    this.element.replaceChildren();
    const data: uPlot.AlignedData = [meter.t, meter.v, meter.t.map(() => answer.threshold)];
    this.plot = new uPlot(this.options(answer, range), data, this.element);
  }

  /** Marks a moment (the time slider's) with a vertical line; undefined clears it. */
  mark(time: number | undefined): void {
    this.moment = time;
    this.plot?.redraw(false, false);
  }

  close(): void {
    this.resize.disconnect();
    this.scheme.removeEventListener('change', this.rebuild);
    this.plot?.destroy();
  }

  private options(answer: JobAnswer, range: Range): uPlot.Options {
    const text = cssColor('--text');
    const grid = cssColor('--grid');
    const peak = Math.max(answer.threshold, ...answer.meter.v) * 1.1;
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    return {
      width: this.width(),
      height: HEIGHT,
      ms: 1,
      scales: {
        x: { time: true, range: () => [range.from, range.to] },
        y: { range: () => [0, peak] },
      },
      axes: [axis, { ...axis, size: 70, values: (_u, ticks) => ticks.map((v) => (v >= 1000 ? `${Math.round(v / 100) / 10}k` : String(v))) }],
      series: [
        { label: 'Time' },
        { label: 'Unsummarized tokens', stroke: cssColor('--meter'), fill: cssColor('--meter-fill'), width: 2, paths: uPlot.paths.stepped!({ align: 1 }), points: { show: false } },
        { label: 'Threshold', stroke: cssColor('--threshold'), width: 1, dash: [6, 4], points: { show: false } },
      ],
      cursor: { drag: { x: true, y: false, setScale: false }, points: { show: false } },
      legend: { live: true },
      hooks: {
        draw: [(u) => this.drawMarks(u, answer)],
        setSelect: [
          (u) => {
            if (u.select.width < 3) return;
            const from = u.posToVal(u.select.left, 'x');
            const to = u.posToVal(u.select.left + u.select.width, 'x');
            u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
            this.listeners.zoom({ from: Math.floor(from), to: Math.ceil(to) });
          },
        ],
        setCursor: [
          (u) => {
            const left = u.cursor.left;
            if (left === undefined || left < 0) return;
            const span = (range.to - range.from) / Math.max(u.bbox.width / uPlot.pxRatio, 1);
            this.listeners.hover(u.posToVal(left, 'x'), span * 3);
          },
        ],
      },
    };
  }

  private drawMarks(u: uPlot, answer: JobAnswer): void {
    const { ctx, bbox } = u;
    const px = uPlot.pxRatio;
    const x = (time: number) => u.valToPos(time, 'x', true);
    const y = (value: number) => u.valToPos(value, 'y', true);
    ctx.save();
    ctx.beginPath();
    ctx.rect(bbox.left, bbox.top, bbox.width, bbox.height);
    ctx.clip();
    ctx.lineWidth = px;

    ctx.fillStyle = ctx.strokeStyle = cssColor('--denial');
    const bottom = bbox.top + bbox.height;
    for (const denial of answer.denials) {
      const at = x(denial.time);
      ctx.fillRect(at - px, bottom - (6 + Math.min(Math.log2(denial.count) * 3, 18)) * px, 2 * px, (6 + Math.min(Math.log2(denial.count) * 3, 18)) * px);
    }

    for (const summary of answer.summaries) {
      const at = x(summary.time);
      const rollup = summary.level > 0;
      ctx.fillStyle = ctx.strokeStyle = cssColor(rollup ? '--rollup' : '--summary');
      ctx.beginPath();
      ctx.moveTo(at, y(summary.before));
      ctx.lineTo(at, y(summary.after));
      ctx.stroke();
      ctx.beginPath();
      const r = 4 * px;
      const cy = y(summary.after);
      if (rollup) {
        ctx.moveTo(at, cy - r);
        ctx.lineTo(at + r, cy);
        ctx.lineTo(at, cy + r);
        ctx.lineTo(at - r, cy);
        ctx.closePath();
      } else ctx.arc(at, cy, r, 0, 2 * Math.PI);
      ctx.fill();
    }

    ctx.fillStyle = cssColor('--trip');
    for (const trip of answer.trips) {
      const at = x(trip.time);
      const r = 5 * px;
      ctx.beginPath();
      ctx.moveTo(at - r, bbox.top);
      ctx.lineTo(at + r, bbox.top);
      ctx.lineTo(at, bbox.top + 1.6 * r);
      ctx.closePath();
      ctx.fill();
    }

    if (this.moment !== undefined) {
      ctx.strokeStyle = cssColor('--text');
      ctx.setLineDash([2 * px, 3 * px]);
      ctx.beginPath();
      ctx.moveTo(x(this.moment), bbox.top);
      ctx.lineTo(x(this.moment), bottom);
      ctx.stroke();
    }
    ctx.restore();
  }
}

/** What the marks mean, under the chart. */
export function meterKey(): HTMLElement {
  const item = (kind: string, label: string) => h('li', {}, h('span', { class: `key ${kind}`, 'aria-hidden': 'true' }), label);
  return h(
    'ul',
    { class: 'keys', 'aria-label': 'Marks on the chart' },
    item('meter', 'unsummarized tokens'),
    item('threshold', 'threshold (now)'),
    item('trip', 'gate tripped'),
    item('summary', 'summary accepted'),
    item('rollup', 'rollup'),
    item('denial', 'tools denied'),
  );
}
