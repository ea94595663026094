// Which content of a config file is in force: the rule for the user's file and each
// project's alike. Any program may write them, so a file's content counts only once it is
// approved; what makes the gate stricter than the approved content applies at once (and
// becomes the approved content a later change is compared with); what weakens it waits
// for the user's `recap config allow`. Pure: the daemon reads and hashes the files.
import type { Caller } from './caller.js';
import { canonicalJson } from './canonical.js';
import { CommandRefused } from './commands.js';
import { configSchema, type Config } from './config.js';
import { configChanges, guardedValues, type KeyChange } from './configPolicy.js';
import type { ConfigApproved, ConfigHeld, Time } from './events.js';

/** sha256 of no bytes: the hash of a config file that is not there. */
export const NO_FILE_HASH = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** A config file's content: the hash of its bytes and the values it sets (valid ones only). */
export type FileContent = { hash: string; values: Record<string, unknown> };

/** Which file: the user's (no project), or a project's `.recap/config.conf`. */
export type ConfigFileRef = { file: string; project?: string };

/** The daemon read a valid config file (at start, on reload, on a project's first use). */
export type SettleConfigFile = ConfigFileRef & {
  type: 'SettleConfigFile';
  read: FileContent;
  /** The approved content on record; undefined when none was ever recorded. */
  approved: FileContent | undefined;
  /** The hash of the last ConfigHeld on record since that approval, if any. */
  heldHash: string | undefined;
  /** The values beneath this file's: the user's in force for a project's file, none for the user's. */
  beneath: Record<string, unknown>;
  now: Time;
};

/** The user's `recap config allow`: this content, read now, becomes the approved one. */
export type AllowConfigFile = ConfigFileRef & {
  type: 'AllowConfigFile';
  job?: string;
  read: FileContent;
  approved: FileContent | undefined;
  /** The hash shown to the user when they were asked; a file changed since is refused. */
  expectedHash?: string;
  /** Who ran `recap config allow`, as the kernel told the daemon. */
  caller?: Caller;
  now: Time;
};

/** What the log says of one config file: its approved content, and the hash of a change held since. */
export type FileRecord = { approved?: FileContent; heldHash?: string };

/** The fold of a file's facts: an approval replaces the content and clears what was held; a ConfigHeld marks its content. */
export function evolveFileRecord(record: FileRecord, event: ConfigApproved | ConfigHeld): FileRecord {
  if (event.type === 'ConfigApproved') return { approved: { hash: event.data.hash, values: event.data.values } };
  return { ...record, heldHash: event.data.hash };
}

/** What of a file is in force: the values it applies, and the keys held at their value in force. */
export type InForce = { values: Record<string, unknown>; held: KeyChange[]; neverApproved: boolean };

type ConfigEvent = ConfigApproved | ConfigHeld;

const NO_FILE: FileContent = { hash: NO_FILE_HASH, values: {} };

/**
 * What of the file as read applies, and the facts to record: the content as approved when
 * it weakens nothing (a stricter change counts as approved, so a later weakening is compared
 * with it), the stricter part of a mixed change, and a ConfigHeld for what waits.
 */
export function settleConfigFile(c: SettleConfigFile): [InForce, ConfigEvent[]] {
  // The user wrote their own file before installing recap (and a fresh install has nothing
  // to compare it with): the first content recap ever reads is theirs, taken as approved.
  // From then on a program that rewrites it is held like any other writer.
  if (c.approved === undefined && c.project === undefined) return [{ values: c.read.values, held: [], neverApproved: false }, [approved(c, c.read, 'firstSeen')]];
  const base = c.approved ?? NO_FILE;
  const neverApproved = c.approved === undefined;
  if (c.read.hash === base.hash && sameValues(base.values, c.read.values)) return [{ values: c.read.values, held: [], neverApproved }, []];
  const wanted = full(c.beneath, c.read.values);
  const inForce = full(c.beneath, base.values) ?? full(c.beneath, {});
  if (wanted === undefined || inForce === undefined) return [{ values: base.values, held: [], neverApproved }, []];
  const merged = configSchema.safeParse(guardedValues(inForce, wanted).values);
  // Stricter ends of a band that cross (a floor above the old ceiling) keep the approved band.
  const config: Record<string, unknown> = merged.success ? merged.data : inForce;
  if (configChanges(config, wanted).length === 0) return [{ values: c.read.values, held: [], neverApproved: false }, [approved(c, c.read, 'stricter')]];
  // Only what the file sets, or no longer sets, is taken: a value its PROFILE fills in
  // follows the PROFILE in force, not the one that waits.
  const taken = configChanges(inForce, config)
    .map((change) => change.key)
    .filter((key) => key in c.read.values || key in base.values);
  const values = { ...base.values };
  for (const key of taken) {
    if (key in c.read.values) values[key] = c.read.values[key];
    else delete values[key];
  }
  const held = configChanges(full(c.beneath, values) ?? inForce, wanted);
  const events: ConfigEvent[] = [];
  if (taken.length > 0) events.push(approved(c, { hash: c.read.hash, values }, 'stricter'));
  if (c.heldHash !== c.read.hash) events.push(heldEvent(c, held));
  return [{ values, held, neverApproved: neverApproved && taken.length === 0 }, events];
}

/**
 * The user approves the file as read now: its values apply whole. Refused when it changed
 * since it was shown; a no-op when this very content is approved already.
 */
export function allowConfigFile(c: AllowConfigFile): [{ already: boolean }, ConfigApproved[]] {
  if (c.expectedHash !== undefined && c.expectedHash !== c.read.hash) {
    throw new CommandRefused(`${c.file} changed since its changes were shown to you; run the command again and read them anew`);
  }
  const base = c.approved ?? (c.project !== undefined ? NO_FILE : undefined);
  if (base !== undefined && base.hash === c.read.hash && sameValues(base.values, c.read.values)) return [{ already: true }, []];
  const event = approved(c, c.read, 'allow');
  if (c.caller !== undefined) event.data.caller = c.caller;
  return [{ already: false }, [event]];
}

function approved(c: ConfigFileRef & { job?: string; now: Time }, content: FileContent, by: ConfigApproved['data']['by']): ConfigApproved {
  return {
    type: 'ConfigApproved',
    data: {
      ...(c.job !== undefined ? { job: c.job } : {}),
      ...(c.project !== undefined ? { project: c.project } : {}),
      file: c.file,
      hash: content.hash,
      values: content.values,
      by,
      time: c.now,
    },
  };
}

function heldEvent(c: SettleConfigFile, held: KeyChange[]): ConfigHeld {
  return {
    type: 'ConfigHeld',
    data: { ...(c.project !== undefined ? { project: c.project } : {}), file: c.file, hash: c.read.hash, held: held.map(({ key, from, to }) => ({ key, from, to })), time: c.now },
  };
}

/** The whole configuration a file's values make over those beneath it; undefined when they do not validate together. */
function full(beneath: Record<string, unknown>, values: Record<string, unknown>): Config | undefined {
  const parsed = configSchema.safeParse({ ...beneath, ...values });
  return parsed.success ? parsed.data : undefined;
}

function sameValues(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return a === b || canonicalJson(a) === canonicalJson(b);
}
