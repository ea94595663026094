// Keeps the audit index's chunks (auditChunks.ts) written as the log grows, whether or not
// the page is open: each time the log passes the end of a window, once it is on disk, that
// window's events are read back without their texts, folded on from where the chunks end,
// and written as its chunk. Between windows it holds only every job's carry (the meter's
// unsummarized interactions and two times), never the log's events.
import { encodeChunk, newestChunk, windowsAfter, type ChainEnd, type Tracks } from './auditChunks.js';
import { Track } from './auditTrack.js';
import type { EventStore } from './eventStore.js';

export class AuditChunkWriter {
  /** Where the chunks end, once known; undefined: read from the log when next needed. */
  private end: ChainEnd | undefined;
  private running: Promise<void> | undefined;
  /** The window ends the log has passed that a run has not yet looked at. */
  private wanted = 0;
  private stopped = false;
  private readonly follow = () => {
    if (Math.floor(this.store.lastSeq / this.size) * this.size > this.wanted) void this.catchUp();
  };

  constructor(
    private readonly store: EventStore,
    /** Events per chunk (chunkEvents). */
    private readonly size: number,
    /** Told why chunks could not be written (the page then folds those windows itself). */
    private readonly failed?: (error: Error) => void,
  ) {
    // A log's chunks are written as it passes each window's end: at start-up they are as the last run left them.
    this.wanted = Math.floor(store.lastSeq / this.size) * this.size;
    store.on('appended', this.follow);
  }

  /** Writes the chunks of every window the log holds whole; resolves when they are written. */
  catchUp(): Promise<void> {
    this.wanted = Math.floor(this.store.lastSeq / this.size) * this.size;
    return (this.running ??= this.run().finally(() => (this.running = undefined)));
  }

  /** Stops following the log; resolves when a run in progress has stopped. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.store.off('appended', this.follow);
    await this.running;
  }

  private async run(): Promise<void> {
    try {
      for (let target = 0; target < this.wanted && !this.stopped;) {
        target = this.wanted;
        await this.store.flushed();
        // A failed write may have taken events back.
        const upTo = Math.min(target, Math.floor(this.store.lastSeq / this.size) * this.size);
        this.end ??= await newestChunk(this.store, this.size, upTo);
        for await (const window of windowsAfter(this.store, this.size, this.end, upTo, () => !this.stopped)) {
          if (this.stopped) return;
          if (!window.whole) {
            // Events missing from the window: nothing is written past it until the chunks are read again.
            this.end = undefined;
            return;
          }
          await this.store.putAuditChunk(window.window, encodeChunk(window));
          this.end = { to: window.to, tracks: carried(window.tracks) };
        }
      }
    } catch (error) {
      this.end = undefined;
      this.failed?.(error as Error);
    }
  }
}

/** Only what the tracks carry into the next window: the window's own marks are in its chunk. */
function carried(tracks: Tracks): Tracks {
  const kept: Tracks = new Map();
  for (const [job, track] of tracks) kept.set(job, Track.from(track.carry()));
  return kept;
}
