// The audit page: a hash route picks the view (#/ jobs, #/job/<name> one job, #/usage), and
// /api/live tells the open view when the log changes, so it is redrawn without a reload.
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { followLive } from './api.js';
import { failure } from './dom.js';
import { JobView } from './jobView.js';
import { JobsView } from './jobsView.js';
import { UsageView } from './usageView.js';
import type { View } from './view.js';

const main = document.getElementById('main')!;
const live = document.getElementById('live')!;
let current: View | undefined;

function viewFor(hash: string): { view: View; nav: string } {
  const job = /^#\/job\/(.+)$/.exec(hash);
  if (job) return { view: new JobView(jobName(job[1]!)), nav: '' };
  if (hash === '#/usage') return { view: new UsageView(), nav: 'usage' };
  return { view: new JobsView(), nav: 'jobs' };
}

/** The job an address names; one that does not decode is taken as written (the daemon then says it has no such job). */
function jobName(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

async function route(): Promise<void> {
  current?.close();
  const { view, nav } = viewFor(location.hash);
  current = view;
  for (const link of document.querySelectorAll<HTMLElement>('[data-nav]')) {
    if (link.dataset.nav === nav) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  main.replaceChildren();
  try {
    await view.show(main);
  } catch (error) {
    if (current !== view) return;
    main.replaceChildren(failure(error));
  }
}

window.addEventListener('hashchange', () => {
  void route();
  main.focus({ preventScroll: true });
});
const LIVE_TEXT = { live: 'live', reconnecting: 'reconnecting', 'signed-out': 'not live: run recap ui and open its new link' };
followLive({
  changed: (change) => {
    document.body.dataset.lastSeq = String(change.lastSeq);
    current?.changed(change);
  },
  opened: () => current?.refresh(),
  state: (state) => {
    live.textContent = LIVE_TEXT[state];
    live.dataset.state = state;
  },
});
void route();
