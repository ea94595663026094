import type { LiveChange } from './api.js';

/** One screen of the page: drawn into `main`, told of the log's changes, closed when left. */
export type View = {
  show(main: HTMLElement): Promise<void>;
  changed(change: LiveChange): void;
  close(): void;
};
