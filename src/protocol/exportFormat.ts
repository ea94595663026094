// The export format: JSON Lines, a header line first, then one event per line as stored
// (seq, type, version, time, data), then (version 2) an end line with the count of events, so
// an export cut short (a full disk, a failed page) is told from a whole one. Version 1 files,
// without it, are still read. A change of shape gets a new version.
import { z } from 'zod';
import { CURRENT_VERSION, EVENT_TYPES } from '../events/events.js';

export const EXPORT_FORMAT = 'recap-events';
export const EXPORT_VERSION = 2;

/** The first line; `job` when the export holds one job's events only. */
export const exportHeader = (job?: string): string => JSON.stringify({ format: EXPORT_FORMAT, version: EXPORT_VERSION, ...(job !== undefined ? { job } : {}) });

/** The last line: how many events the export holds. */
export const exportEnd = (events: number): string => JSON.stringify({ end: { events } });

export const headerSchema = z.object({ format: z.literal(EXPORT_FORMAT), version: z.union([z.literal(1), z.literal(2)]), job: z.string().optional() });

export const endSchema = z.object({ end: z.object({ events: z.number().int().min(0) }).strict() }).strict();

export const lineSchema = z
  .object({
    seq: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    type: z.enum(EVENT_TYPES as [string, ...string[]]),
    version: z.number().int().min(1),
    time: z.string().nullable(),
    data: z.record(z.string(), z.unknown()),
  })
  .strict()
  .refine((l) => l.version <= (CURRENT_VERSION as Record<string, number>)[l.type]!, {
    message: 'the event is newer than this recap reads; update recap',
    path: ['version'],
  });
