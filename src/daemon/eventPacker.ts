// Puts the log's older events in packs (eventPacks.ts) in the background: each time the log
// passes the end of a range of RECAP_PACK_EVENTS sequence numbers (1,024 by default) by more
// than the newest events kept under keys of their own, that range is packed through the
// store's write queue (EventStore.pack), so it never races a write. A log written before
// packs existed is packed the same way, a range at a time, from the daemon's start; then the
// packs an older recap made larger than PACK_BYTES are split, once (EventStore.boundPacks).
import type { Logger } from 'pino';
import type { EventStore } from './eventStore.js';

const DEFAULT_PACK_EVENTS = 1024;
/** The newest events stay under keys of their own (at most a pack's worth): they are the ones read and rewritten soon after they are written. */
const NEWEST_KEPT = 256;

/** Sequence numbers per pack: range k holds events k * size + 1 to (k + 1) * size. */
export function packEvents(env: NodeJS.ProcessEnv): number {
  const size = Number(env.RECAP_PACK_EVENTS);
  return Number.isSafeInteger(size) && size > 1 ? size : DEFAULT_PACK_EVENTS;
}

export type PackerTold = {
  /** The events up to `through` are packed (told once a run has packed all it could). */
  packed?: (through: number) => void;
  /** How many of an older recap's large packs were split (told when some were). */
  split?: (packs: number) => void;
  /** Why packing stopped (it starts again as the log next passes a range's end). */
  failed?: (error: Error) => void;
};

/**
 * The daemon's packer, started: the older events of the log (one from before packs too) put in
 * packs now and as the log grows; `log` is told when it has caught up, and why it could not.
 */
export function startPacker(store: EventStore, env: NodeJS.ProcessEnv, log: Logger): EventPacker {
  const packer = new EventPacker(store, packEvents(env), {
    packed: (through) => log.info({ packedThrough: through }, 'events packed'),
    split: (packs) => log.info({ packsSplit: packs }, 'older packs split'),
    failed: (error) => log.warn({ err: error }, 'events could not be packed: they stay under keys of their own, and packing is tried again as the log grows'),
  });
  void packer.catchUp();
  return packer;
}

export class EventPacker {
  /** Where the next range to pack starts; undefined: after the store's last packed event. */
  private from: number | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  /** Whether the packs were checked for an older recap's large ones since the daemon started. */
  private bounded = false;
  private readonly kept: number;
  private readonly follow = () => {
    if (this.running === undefined && this.packable() >= (this.from ?? this.store.packedUpTo + 1)) void this.catchUp();
  };

  constructor(
    private readonly store: EventStore,
    private readonly size: number,
    private readonly told: PackerTold = {},
  ) {
    this.kept = Math.min(NEWEST_KEPT, size);
    store.on('appended', this.follow);
  }

  /** Packs every range the log has passed; resolves when they are packed. */
  catchUp(): Promise<void> {
    return (this.running ??= this.run().finally(() => (this.running = undefined)));
  }

  /** Stops following the log; resolves when a run in progress has stopped. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.store.off('appended', this.follow);
    await this.running;
  }

  /** The end of the last range that may be packed now. */
  private packable(): number {
    return Math.floor(Math.max(0, this.store.lastSeq - this.kept) / this.size) * this.size;
  }

  private async run(): Promise<void> {
    let packed = false;
    try {
      for (let from = (this.from ??= this.store.packedUpTo + 1); from <= this.packable() && !this.stopped; from = this.from) {
        const to = Math.ceil(from / this.size) * this.size;
        await this.store.pack(from, to);
        this.from = to + 1;
        packed = true;
      }
      if (packed) this.told.packed?.(this.store.packedUpTo);
      if (!this.bounded && !this.stopped) {
        const split = await this.store.boundPacks(() => this.stopped);
        this.bounded = !this.stopped;
        if (split > 0) this.told.split?.(split);
      }
    } catch (error) {
      // A failed write may have taken events back: where packing goes on is read from the store again.
      this.from = undefined;
      this.told.failed?.(error as Error);
    }
  }
}
