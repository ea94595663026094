import type { LiveChange } from './api.js';

/** One screen of the page: drawn into `main`, told of the log's changes, closed when left. */
export type View = {
  show(main: HTMLElement): Promise<void>;
  /** The log changed: the view asks again for what it shows, if `change` concerns it. */
  changed(change: LiveChange): void;
  /** Asks again for what it shows (the live stream reconnected: changes may have been missed). */
  refresh(): void;
  close(): void;
};
