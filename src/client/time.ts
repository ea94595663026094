// The times users type and read. Input: local HH:MM[:SS] today, an ISO 8601 time (local
// unless it names its offset), or a span ago (90s, 10m, 2h, 3d). Output: the user's local
// zone with its offset shown; --json keeps UTC ISO times.
import { UserError } from '../common/errors.js';

const SPAN = /^(\d+)(s|m|h|d)$/;
const CLOCK = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/;
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const UNIT_WORD = { s: 'second', m: 'minute', h: 'hour', d: 'day' } as const;

/** How an option's help names the times it takes. */
export const TIME_HINT = '(HH:MM, ISO 8601, or 10m/2h/3d ago)';

export const TIME_FORMS =
  'a local time today (HH:MM or HH:MM:SS, e.g. 14:02), an ISO 8601 time (2026-11-22T14:02, local unless it ends in Z or an offset), or a span ago (90s, 10m, 2h, 3d)';

export class BadTime extends UserError {}

/** A time the user typed, in milliseconds, and how it was read (to say so). */
export type ReadTime = { ms: number; took: string };

export function readTime(text: string, now = new Date()): ReadTime {
  const span = SPAN.exec(text);
  if (span) {
    const unit = span[2] as keyof typeof UNIT_MS;
    const ms = now.getTime() - Number(span[1]) * UNIT_MS[unit];
    return { ms, took: `${span[1]} ${UNIT_WORD[unit]}${span[1] === '1' ? '' : 's'} ago, ${localTime(ms)}` };
  }
  const clock = CLOCK.exec(text);
  if (clock) {
    const [h, m, s] = [Number(clock[1]), Number(clock[2]), Number(clock[3] ?? 0)];
    if (h > 23 || m > 59 || s > 59) throw bad(text, 'hours run 00-23, minutes and seconds 00-59');
    const at = new Date(now);
    at.setHours(h, m, s, 0);
    return { ms: at.getTime(), took: `local time today, ${localTime(at.getTime())}` };
  }
  const iso = ISO.exec(text);
  if (iso) {
    const [, y, mo, d, h = '00', mi = '00', s = '00', zone] = iso;
    const day = Number(d);
    const real = new Date(Date.UTC(Number(y), Number(mo) - 1, day)).getUTCDate() === day && Number(mo) >= 1 && Number(mo) <= 12;
    if (!real || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) throw bad(text, 'not a real date and time');
    const fraction = Number(/\.\d+/.exec(text)?.[0] ?? 0);
    // Without an offset it is local time (Date.parse would read a bare date as UTC).
    const ms =
      zone === undefined ? new Date(Number(y), Number(mo) - 1, day, Number(h), Number(mi), Number(s), Math.round(fraction * 1000)).getTime() : Date.parse(text.replace(' ', 'T'));
    if (Number.isNaN(ms)) throw bad(text);
    return { ms, took: `${zone === undefined ? 'ISO 8601, local time' : 'ISO 8601'}, ${localTime(ms)}` };
  }
  throw bad(text);
}

/** Milliseconds of a time the user typed (see readTime). */
export function parseTime(text: string, now = new Date()): number {
  return readTime(text, now).ms;
}

function bad(text: string, why?: string): BadTime {
  return new BadTime(`cannot read the time ${JSON.stringify(text)}${why ? ` (${why})` : ''}: use ${TIME_FORMS}`);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** "2026-11-22 14:02:05 +01:00": the user's local time with its offset (TZ decides the zone). */
export function localTime(ms: number): string {
  const at = new Date(ms);
  if (Number.isNaN(at.getTime())) return '-';
  const offset = -at.getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  const zone = `${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())} ${zone}`;
}

/** localTime of an ISO time as the daemon sends it (null or unreadable: "-"). */
export function localIso(iso: string | null | undefined): string {
  return iso ? localTime(Date.parse(iso)) : '-';
}

/**
 * The time a flag gives, in milliseconds; says on stderr how it was read (not with --json,
 * whose readers want stdout alone), and names the flag when it cannot be read.
 */
export function timeFlag(text: string, flag: string, json: boolean): number {
  try {
    const { ms, took } = readTime(text);
    if (!json) process.stderr.write(`recap: ${flag} ${text}: ${took}\n`);
    return ms;
  } catch (error) {
    if (error instanceof BadTime) throw new BadTime(`${flag}: ${error.message}`);
    throw error;
  }
}

/** A span the user gives for how long (recap pause 2h): 90s, 30m, 2h or 1d, in milliseconds. */
export function parseDuration(text: string): number {
  const span = SPAN.exec(text);
  if (!span) throw new BadTime(`cannot read the duration ${JSON.stringify(text)}: give a number and a unit, such as 90s, 30m, 2h or 1d`);
  const ms = Number(span[1]) * UNIT_MS[span[2] as keyof typeof UNIT_MS];
  if (ms === 0) throw new BadTime(`a duration of ${text} is none: give at least 1s`);
  if (ms > LONGEST_MS) throw new BadTime(`${text} is longer than a year: give at most 365d`);
  return ms;
}

/** The longest span recap takes: a year. */
const LONGEST_MS = 365 * 86_400_000;
