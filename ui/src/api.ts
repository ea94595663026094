// The daemon's /api: what each path answers (types from the server's own definitions, so the
// two cannot drift) and one way to ask, with the server's message on failure.
import type { LiveChange } from '../../src/daemon/uiApi.js';

export type {
  AtAnswer,
  ChainAnswer,
  JobAnswer,
  JobsAnswer,
  LiveChange,
  Moment,
  MomentsAnswer,
  QualityAnswer,
  SessionsAnswer,
  UsageAnswer,
  VerifyAnswer,
} from '../../src/daemon/uiApi.js';
export type { SummaryMark, Trip } from '../../src/daemon/auditIndex.js';
export type { SummaryQuality } from '../../src/events/qualitySignals.js';
export type { UsageSeries } from '../../src/daemon/usageIndex.js';

/** A refusal or failure from the daemon, with what it says to do. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function get<T>(path: string, params: Record<string, string | number | undefined> = {}): Promise<T> {
  const url = new URL(path, location.origin);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, String(value));
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json' } });
  } catch {
    throw new ApiError(0, 'recap daemon is not answering: is it running? (recap status --daemon; recap ui starts it)');
  }
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { error?: string };
    throw new ApiError(response.status, body.error ?? `the daemon answered ${response.status}`);
  }
  return (await response.json()) as T;
}

/** One panel's requests: an answer that arrives after a newer request's is dropped (undefined). */
export class Latest {
  private asked = 0;

  async get<T>(path: string, params: Record<string, string | number | undefined> = {}): Promise<T | undefined> {
    const mine = ++this.asked;
    const answer = await get<T>(path, params);
    return mine === this.asked ? answer : undefined;
  }
}

export type LiveState = 'live' | 'reconnecting' | 'signed-out';

/**
 * Follows /api/live: `changed` for each batch of changed jobs; `opened` each time the stream
 * (re)connects, when whatever happened while it was down is asked for again; `state` as the
 * connection comes and goes. A refusal (the daemon restarted: sessions end with it) is final.
 */
export function followLive(handlers: { changed: (change: LiveChange) => void; opened: () => void; state: (state: LiveState) => void }): () => void {
  const source = new EventSource('/api/live');
  source.addEventListener('open', () => {
    handlers.state('live');
    handlers.opened();
  });
  source.addEventListener('error', () => handlers.state(source.readyState === EventSource.CLOSED ? 'signed-out' : 'reconnecting'));
  source.addEventListener('change', (event) => handlers.changed(JSON.parse((event as MessageEvent<string>).data) as LiveChange));
  return () => source.close();
}
