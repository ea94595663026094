// The export format: JSON Lines, a header line first, then one event per line as stored
// (seq, type, version, time, data). Version 1; a change of shape gets a new version.
import { z } from 'zod';
import { CURRENT_VERSION, EVENT_TYPES } from '../events/events.js';

export const EXPORT_FORMAT = 'recap-events';
export const EXPORT_VERSION = 1;

export const exportHeader = (): string => JSON.stringify({ format: EXPORT_FORMAT, version: EXPORT_VERSION });

export const headerSchema = z.object({ format: z.literal(EXPORT_FORMAT), version: z.literal(EXPORT_VERSION) });

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
