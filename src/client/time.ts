// Reading the times users type: an ISO time, HH:MM[:SS] today, or a span ago (90s, 10m, 2h, 3d).

const SPAN = /^(\d+)(s|m|h|d)$/;
const CLOCK = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export class BadTime extends Error {}

export function parseTime(text: string, now = new Date()): number {
  const span = SPAN.exec(text);
  if (span) return now.getTime() - Number(span[1]) * UNIT_MS[span[2] as keyof typeof UNIT_MS];
  const clock = CLOCK.exec(text);
  if (clock) {
    const at = new Date(now);
    at.setHours(Number(clock[1]), Number(clock[2]), Number(clock[3] ?? 0), 0);
    return at.getTime();
  }
  const parsed = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(parsed)) {
    throw new BadTime(`cannot read the time ${JSON.stringify(text)}: use an ISO time (2026-11-22T14:02), HH:MM for today, or a span ago such as 10m, 2h or 3d`);
  }
  return parsed;
}

/** A span the user gives for how long (recap pause 2h): 90s, 30m, 2h or 1d, in milliseconds. */
export function parseDuration(text: string): number {
  const span = SPAN.exec(text);
  const ms = span ? Number(span[1]) * UNIT_MS[span[2] as keyof typeof UNIT_MS] : 0;
  if (ms <= 0) throw new BadTime(`cannot read the duration ${JSON.stringify(text)}: give a number and a unit, such as 90s, 30m, 2h or 1d`);
  return ms;
}
