// #/ — every job in the log: its gate, its meter against the threshold, summaries, denials,
// agents and last activity; sortable by any column, redrawn when any job changes.
import { Latest, type JobsAnswer, type LiveChange } from './api.js';
import { h, timeElement, tokens } from './dom.js';
import type { View } from './view.js';

type Row = JobsAnswer['jobs'][number];
type Column = { key: string; label: string; value: (row: Row) => string | number; numeric?: boolean };

const COLUMNS: Column[] = [
  { key: 'job', label: 'Job', value: (row) => row.job },
  { key: 'gate', label: 'Gate', value: (row) => (row.tripped ? 1 : 0) },
  { key: 'meter', label: 'Unsummarized', value: (row) => row.unsummarizedTokens / Math.max(row.threshold, 1), numeric: true },
  { key: 'summaries', label: 'Summaries', value: (row) => row.summaries, numeric: true },
  { key: 'denials', label: 'Denials', value: (row) => row.denials, numeric: true },
  { key: 'agents', label: 'Agents', value: (row) => row.agents.join(', ') },
  { key: 'activity', label: 'Last activity', value: (row) => row.lastActivity ?? 0, numeric: true },
];

export class JobsView implements View {
  private sort = { key: 'activity', descending: true };
  private rows: Row[] = [];
  private table: HTMLElement | undefined;
  private readonly requests = new Latest();
  private closed = false;

  async show(main: HTMLElement): Promise<void> {
    this.table = h('div', { class: 'table-wrap' });
    main.append(h('h1', {}, 'Jobs'), this.table);
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
  }

  private async load(): Promise<void> {
    const answer = await this.requests.get<JobsAnswer>('/api/jobs');
    if (this.closed || !answer) return;
    this.rows = answer.jobs;
    this.draw();
  }

  private draw(): void {
    if (this.rows.length === 0) {
      this.table!.replaceChildren(h('p', { class: 'muted' }, 'No jobs in the log yet: a job appears here when an agent with recap’s hooks records its first interaction.'));
      return;
    }
    const column = COLUMNS.find((c) => c.key === this.sort.key)!;
    const rows = [...this.rows].sort((a, b) => {
      const x = column.value(a);
      const y = column.value(b);
      const order = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
      return this.sort.descending ? -order : order;
    });
    const head = COLUMNS.map((c) =>
      h(
        'th',
        { scope: 'col', 'aria-sort': c.key === this.sort.key ? (this.sort.descending ? 'descending' : 'ascending') : undefined, class: c.numeric ? 'num' : undefined },
        h('button', { type: 'button', class: 'sort', onclick: () => this.sortBy(c.key) }, c.label),
      ),
    );
    this.table!.replaceChildren(h('table', { class: 'jobs', 'data-jobs': rows.length }, h('thead', {}, h('tr', {}, ...head)), h('tbody', {}, ...rows.map((row) => jobRow(row)))));
  }

  private sortBy(key: string): void {
    this.sort = { key, descending: this.sort.key === key ? !this.sort.descending : key !== 'job' && key !== 'agents' };
    this.draw();
    this.table!.querySelector<HTMLElement>(`th[aria-sort] button`)?.focus();
  }
}

function jobRow(row: Row): HTMLElement {
  return h(
    'tr',
    { 'data-job': row.job },
    h('th', { scope: 'row' }, h('a', { href: `#/job/${encodeURIComponent(row.job)}` }, row.job)),
    h('td', {}, gate(row.tripped, row.reason)),
    h(
      'td',
      { class: 'num' },
      h('meter', { min: 0, max: row.threshold, high: row.threshold * 0.8, value: row.unsummarizedTokens, 'aria-hidden': 'true' }),
      ` ${tokens(row.unsummarizedTokens)} / ${tokens(row.threshold)}`,
    ),
    h('td', { class: 'num' }, row.summaries),
    h('td', { class: 'num' }, row.denials),
    h('td', {}, row.agents.join(', ')),
    h('td', { class: 'num' }, timeElement(row.lastActivity)),
  );
}

export function gate(tripped: boolean, reason: string | undefined): HTMLElement {
  return tripped ? h('span', { class: 'badge tripped' }, `tripped${reason ? ` (${reason})` : ''}`) : h('span', { class: 'badge open' }, 'open');
}
