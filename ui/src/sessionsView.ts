// A job's sessions, newest first: each one's agent, start, whether it ended (and why) or is
// still open, its tool calls and denials, and its model's tokens per model, as `recap report
// --session` tells them.
import { Latest, type SessionsAnswer } from './api.js';
import { failure, h, tokens, when } from './dom.js';

type Session = SessionsAnswer['sessions'][number];

export class SessionsPanel {
  readonly element = h('section', { class: 'sessions', 'aria-labelledby': 'sessions-title' });
  private readonly table = h('div', { class: 'table-wrap' });
  private readonly requests = new Latest();

  constructor(private readonly job: string) {
    this.element.append(h('h2', { id: 'sessions-title' }, 'Sessions'), this.table);
  }

  load(): void {
    void this.requests
      .get<SessionsAnswer>('/api/sessions', { job: this.job })
      .then((answer) => {
        if (answer) this.draw(answer.sessions);
      })
      .catch((error: unknown) => this.table.replaceChildren(failure(error)));
  }

  private draw(sessions: Session[]): void {
    if (sessions.length === 0) {
      this.table.replaceChildren(h('p', { class: 'muted' }, 'No agent session recorded yet.'));
      return;
    }
    const head = ['Session', 'Agent', 'Started', 'State', 'Tool calls', 'Denials', 'Tokens per model (in / out)'].map((label) => h('th', { scope: 'col' }, label));
    this.table.replaceChildren(h('table', { 'data-sessions': sessions.length }, h('thead', {}, h('tr', {}, ...head)), h('tbody', {}, ...sessions.map(sessionRow))));
  }
}

function sessionRow(s: Session): HTMLElement {
  const state = s.ended === undefined ? 'open' : `ended ${when(s.ended.time)}${s.ended.reason !== undefined ? ` (${s.ended.reason})` : ''}`;
  const models = s.byModel.length === 0 ? '—' : s.byModel.map((m) => `${m.model}: ${tokens(m.input)} / ${tokens(m.output)}`).join('; ');
  return h(
    'tr',
    { 'data-session': s.session },
    h('th', { scope: 'row' }, s.session),
    h('td', {}, s.from ?? '—'),
    h('td', {}, when(s.started)),
    h('td', {}, state),
    h('td', { class: 'num' }, String(s.toolCalls)),
    h('td', { class: 'num' }, String(s.denials)),
    h('td', { 'data-models': '' }, models),
  );
}
