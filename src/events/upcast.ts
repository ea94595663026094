// Reading events of older schema versions: each upcaster turns one version into the next,
// so readers only ever see the current shape. Stored bytes are never rewritten.
import { CURRENT_VERSION, type EventType, type StoredEvent } from './events.js';

type Upcaster = (data: Record<string, unknown>) => Record<string, unknown>;

/** UPCASTERS[type][v] turns version v of `type` into version v + 1. */
const UPCASTERS: Partial<Record<EventType, Record<number, Upcaster>>> = {
  // Version 1 of ToolDenied did not say why: every denial then came from the gate.
  ToolDenied: { 1: (data) => ({ ...data, cause: 'gate' }) },
  // Version 1 of ConfigApproved was a project's file, approved by the user's `recap config allow`.
  ConfigApproved: { 1: (data) => ({ ...data, by: 'allow' }) },
  // Version 1 of SummaryAccepted had no gist and named no files: absent fields are none, and
  // adding any would change the content its hash covers.
  // Version 2 had no `secrets`: none were replaced (adding the field would change its hash).
  SummaryAccepted: { 1: (data) => data, 2: (data) => data },
  // Version 1 of InteractionRecorded had no `secrets`: none were replaced.
  InteractionRecorded: { 1: (data) => data },
};

export class UnknownEventVersion extends Error {}

export function upcast(event: StoredEvent): StoredEvent {
  const current = CURRENT_VERSION[event.type];
  if (current === undefined) throw new UnknownEventVersion(`event #${event.seq} has the unknown type ${JSON.stringify(event.type)}`);
  if (event.version === current) return event;
  if (event.version > current) {
    throw new UnknownEventVersion(`event #${event.seq} (${event.type}) is version ${event.version}, newer than this recap reads (${current}); update recap`);
  }
  let data = event.data as Record<string, unknown>;
  for (let version = event.version; version < current; version += 1) {
    const step = UPCASTERS[event.type]?.[version];
    if (!step) throw new UnknownEventVersion(`event #${event.seq} (${event.type}) is version ${event.version}, which recap cannot read`);
    data = step(data);
  }
  return { ...event, version: current, data } as StoredEvent;
}
