// A fold of the whole log, built the first time it is asked for, then kept up to date from the
// store's appends: events appended while the log is read are held and folded after it, each
// once. Nothing is read before the first ask: a daemon nobody asks pays nothing.
import type { StoredEvent } from '../events/events.js';
import type { EventStore } from './eventStore.js';

export class LogFold {
  private building: Promise<void> | undefined;
  private buffered: StoredEvent[] | undefined;
  /** Whether the whole log is folded in. */
  built = false;
  private readonly follow = (stored: StoredEvent[]) => {
    if (this.buffered) this.buffered.push(...stored);
    else for (const event of stored) this.apply(event);
  };

  constructor(
    private readonly store: EventStore,
    private readonly apply: (event: StoredEvent) => void,
  ) {}

  /** Resolves once the whole log is folded in (read on the first call). */
  ready(): Promise<void> {
    return (this.building ??= this.build());
  }

  /** Stops following the log (the daemon is stopping). */
  stop(): void {
    this.store.off('appended', this.follow);
  }

  private async build(): Promise<void> {
    this.buffered = [];
    this.store.on('appended', this.follow);
    const upTo = this.store.lastSeq;
    await this.store.flushed();
    for await (const batch of this.store.readBatches(1, upTo)) for (const event of batch) this.apply(event);
    const held = this.buffered;
    this.buffered = undefined;
    for (const event of held) if (event.seq > upTo) this.apply(event);
    this.built = true;
  }
}
