// What happened around a moment of a job: the list under the chart.
import type { Moment, MomentsAnswer } from './api.js';
import { h, tokens, when } from './dom.js';

export function momentList({ events, more }: MomentsAnswer, time: number): HTMLElement {
  if (events.length === 0) return h('p', { class: 'muted' }, `Nothing recorded around ${when(time)}.`);
  return h('div', {}, h('ol', { class: 'moment-list' }, ...events.map(momentItem)), more ? h('p', { class: 'muted' }, 'More happened here: zoom in to see it all.') : null);
}

function momentItem(moment: Moment): HTMLElement {
  return h('li', { class: `moment ${moment.type}` }, h('time', { datetime: new Date(moment.time).toISOString() }, when(moment.time)), ` #${moment.seq} `, describe(moment));
}

function describe(moment: Moment): Node | string {
  switch (moment.type) {
    case 'InteractionRecorded':
      return h('span', {}, h('strong', {}, `${moment.kind ?? 'interaction'}`), ` ${tokens(moment.tokens ?? 0)} tokens `, h('q', {}, moment.text ?? ''));
    case 'ToolDenied':
      return h('span', {}, h('strong', {}, 'denied'), ` ${moment.tool ?? ''} (${moment.cause ?? 'gate'})`);
    case 'GateTripped':
      return h('span', {}, h('strong', {}, 'gate tripped'), ` ${moment.reason ?? ''} at ${tokens(moment.tokens ?? 0)} tokens`);
    case 'SummaryAccepted':
      return h('span', {}, h('strong', {}, moment.level ? `rollup accepted (level ${moment.level})` : 'summary accepted'), ` ${tokens(moment.tokens ?? 0)} tokens`);
    case 'SummaryRejected':
      return h('span', {}, h('strong', {}, 'summary rejected'), ` ${tokens(moment.tokens ?? 0)} tokens`);
    case 'GatePaused':
      return h('span', {}, h('strong', {}, 'paused'), ` until ${when(moment.until ?? 0)}${byText(moment)}`);
    case 'GateResumed':
      return h('span', {}, h('strong', {}, 'resumed'), byText(moment));
    case 'TripCancelled':
      return h('span', {}, h('strong', {}, 'trip cancelled'), ` (${moment.reason ?? ''})${byText(moment)}`);
    default:
      return moment.type;
  }
}

/** Who ran a user's command, as the daemon learned it from the kernel. */
const byText = (moment: Moment) => (moment.by !== undefined ? ` by ${moment.by}` : '');
