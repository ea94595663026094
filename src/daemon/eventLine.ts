// An event as `recap log --json` and `recap export` write it: one JSON object per line
// (seq, type, version, time, data), its time in ISO form.
import type { StoredEvent } from '../events/events.js';
import type { EventLine } from '../protocol/answers.js';

export function eventLine(event: StoredEvent): EventLine {
  const time = (event.data as { time?: unknown }).time;
  return {
    seq: event.seq,
    type: event.type,
    version: event.version,
    time: typeof time === 'number' ? isoTime(time) : null,
    data: event.data,
  };
}

const MINUTE = 60_000;
/** The start of the minute last formatted, and its ISO text up to the seconds ("...T14:02:"). */
let cachedMinute = Number.NaN;
let cachedPrefix = '';

/**
 * new Date(time).toISOString(), without a Date per event: the events of a page mostly fall
 * in the same minute, and only the seconds and milliseconds differ.
 */
export function isoTime(time: number): string {
  if (!Number.isSafeInteger(time)) return new Date(time).toISOString();
  const minute = time - (((time % MINUTE) + MINUTE) % MINUTE);
  if (minute !== cachedMinute) {
    const iso = new Date(minute).toISOString();
    // Only the usual four-digit years have the fixed shape "YYYY-MM-DDTHH:MM:SS.mmmZ".
    if (iso.length !== 24) return new Date(time).toISOString();
    cachedMinute = minute;
    cachedPrefix = iso.slice(0, 17);
  }
  const ms = time - minute;
  const seconds = Math.floor(ms / 1000);
  const millis = ms % 1000;
  return `${cachedPrefix}${seconds < 10 ? '0' : ''}${seconds}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
}
