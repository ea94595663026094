// Building the page's elements: one small helper, so every view reads as the markup it makes,
// and the few formats the page shows (tokens, times) in one place.
import { ApiError } from './api.js';

type Attributes = Record<string, string | number | boolean | undefined | ((event: Event) => void)>;
type Child = Node | string | number | null | undefined | false;

/** An element with its attributes (`on…` ones are listeners; false and undefined are left out) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  element.append(...children.filter((child) => child !== null && child !== undefined && child !== false).map((child) => (child instanceof Node ? child : String(child))));
  return element;
}

const count = new Intl.NumberFormat('en');

export function tokens(n: number): string {
  return count.format(Math.round(n));
}

const stamp = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

export function when(ms: number): string {
  return stamp.format(new Date(ms));
}

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];

export function ago(ms: number, now = Date.now()): string {
  const delta = ms - now;
  for (const [unit, size] of UNITS) {
    if (Math.abs(delta) >= size || unit === 'second') return relative.format(Math.round(delta / size), unit);
  }
  return '';
}

/** A time element: relative text, the exact moment in its title and datetime. */
export function timeElement(ms: number | null): HTMLElement {
  if (ms === null) return h('span', { class: 'muted' }, 'never');
  return h('time', { datetime: new Date(ms).toISOString(), title: when(ms) }, ago(ms));
}

/** A colour the stylesheet defines (canvas drawing cannot read CSS variables itself). */
export function cssColor(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || 'currentColor';
}

/** Runs `fn` once calls have stopped for `ms`. */
export function debounce<A extends unknown[]>(fn: (...args: A) => void, ms: number): (...args: A) => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return (...args: A) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

/** What went wrong, as the page shows it: the daemon's own message where it gave one. */
export function failure(error: unknown): HTMLElement {
  const message = error instanceof ApiError ? error.message : `the page failed: ${(error as Error).message}`;
  return h('p', { class: 'error', role: 'alert' }, message);
}
