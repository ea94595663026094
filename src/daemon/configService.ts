// The configuration in force: defaults, then the user file, then a job's project file, each
// as far as its approved content allows (configApproval.ts). A file that fails to parse or
// validate is reported (file, line, key, reason) and the last good configuration stays.
import type { Caller } from '../events/caller.js';
import { projectConfigPath } from '../common/paths.js';
import { CONFIG_KEYS, configSchema, DEFAULT_CONFIG } from '../events/config.js';
import { combine, EMPTY_LAYER, readConfigFile, type Effective, type Env, type Layer } from '../common/configLayers.js';

export type { Effective, Layer };
export { sameValues } from '../events/configApplied.js';
import { configChanges, sameValue } from '../events/configPolicy.js';
import { evolveFileRecord, NO_FILE_HASH, type ConfigFileRef, type FileContent, type FileRecord } from '../events/configApproval.js';
import { decideConfig } from '../events/decide.js';
import type { RecapEvent } from '../events/events.js';
import type { HeldFile } from '../events/notices.js';
import { USER_SCOPE, type ApprovedConfig, type HeldConfig } from './projection.js';
import type { Allowed, PendingConfig } from '../protocol/answers.js';

/** A config file as last read well: its values and the hash of its bytes. */
type ReadFile = { layer: Layer; hash: string };

const NO_FILE: ReadFile = { layer: EMPTY_LAYER, hash: NO_FILE_HASH };

/** Every value at its default, each saying so. */
const DEFAULTS: Effective = { config: DEFAULT_CONFIG, sources: Object.fromEntries(CONFIG_KEYS.map((k) => [k, 'default'])) };

/** What the log holds about each file's approval, by scope (a project folder, or USER_SCOPE). */
export type ConfigRecords = {
  approved: (scope: string) => ApprovedConfig | undefined;
  /** The newest ConfigHeld since the file's last approval, if any. */
  held: (scope: string) => HeldConfig | undefined;
};

const NO_RECORDS: ConfigRecords = { approved: () => undefined, held: () => undefined };

const ALLOW_COMMAND = 'recap config allow';
const ALLOW_USER_COMMAND = 'recap config allow --user';

/**
 * The configuration in force. Each file applies as its approved content says
 * (configApproval.ts decides); this class reads and hashes the files, and keeps the facts
 * decided until the handler records them (drain).
 */
export class ConfigService {
  /** The user's file as last read well; undefined until it is. */
  private userRead: ReadFile | undefined;
  /** In force while the user's file has never been read well nor approved: the last configuration on record. */
  private legacyUser: Layer = EMPTY_LAYER;
  /** The user's configuration in force, settled once per read of the files (userSettled). */
  private userInForce: { effective: Effective; layer: Layer } | undefined;
  private readonly projectFiles = new Map<string, ReadFile>();
  private readonly problemsByFile = new Map<string, string[]>();
  /** The configuration in force per project, combined once: every check asks for it. */
  private readonly combined = new Map<string, Effective>();
  private readonly pendingByScope = new Map<string, PendingConfig>();
  /** Facts decided and not yet in the log, and what they say meanwhile, by scope. */
  private outbox: RecapEvent[] = [];
  private readonly unrecorded = new Map<string, FileRecord>();

  constructor(
    readonly userFile: string,
    private readonly env: Env,
    /** The user-wide values last recorded in the log: the last good configuration at start. */
    recorded?: Record<string, unknown>,
    private readonly records: ConfigRecords = NO_RECORDS,
    private readonly now: () => number = Date.now,
  ) {
    if (recorded) {
      const parsed = configSchema.safeParse(recorded);
      const sources = Object.fromEntries(CONFIG_KEYS.map((k) => [k, 'the last good configuration on record']));
      if (parsed.success) this.legacyUser = { values: parsed.data, sources };
    }
    this.loadUser();
  }

  /** Every problem of the files as they are now, one line each. */
  get problems(): string[] {
    return [...this.problemsByFile.values()].flat();
  }

  user(): Effective {
    return this.userSettled().effective;
  }

  /** The user's configuration in force and its layer (what each project's file is over), settled once per read of the files. */
  private userSettled(): { effective: Effective; layer: Layer } {
    this.userInForce ??= this.settleUser();
    return this.userInForce;
  }

  private settleUser(): { effective: Effective; layer: Layer } {
    if (this.userRead !== undefined) return this.settle(USER_SCOPE, { file: this.userFile }, this.userRead, EMPTY_LAYER, ALLOW_USER_COMMAND);
    const approved = this.approvedFor(USER_SCOPE);
    const layer = approved ? { values: approved.values, sources: sourcesOf(approved.values, asApproved(this.userFile, approved.hash)) } : this.legacyUser;
    const combined = combine([layer]);
    return { effective: combined.ok ? combined.effective : DEFAULTS, layer };
  }

  /** RECAP_SCOPE in the daemon's environment: SCOPE where no config file sets it (events/scope.ts). */
  get scopeFromEnv(): string | undefined {
    return this.env.RECAP_SCOPE;
  }

  forProject(projectDir: string | undefined): Effective {
    if (projectDir === undefined) return this.user();
    if (!this.projectFiles.has(projectDir)) this.loadProject(projectDir);
    return this.memo(projectDir, () => {
      const file = projectConfigPath(projectDir);
      const user = this.userSettled();
      return this.settle(projectDir, { file, project: projectDir }, this.projectFiles.get(projectDir) ?? NO_FILE, user.layer, ALLOW_COMMAND, user.effective).effective;
    });
  }

  /** The project's change that waits for approval, if one does. */
  pending(projectDir: string): PendingConfig | undefined {
    this.forProject(projectDir);
    return this.pendingByScope.get(projectDir);
  }

  /** The user's file's change that waits for approval, if one does. */
  userPending(): PendingConfig | undefined {
    this.user();
    return this.pendingByScope.get(USER_SCOPE);
  }

  /** The changes that wait for approval where a project's configuration comes from, each with the ConfigHeld on record that said so. */
  heldFiles(projectDir: string | undefined): HeldFile[] {
    const files: HeldFile[] = [];
    for (const scope of projectDir !== undefined ? [USER_SCOPE, projectDir] : [USER_SCOPE]) {
      const pending = scope === USER_SCOPE ? this.userPending() : this.pending(scope);
      const record = this.records.held(scope);
      if (pending !== undefined && record?.hash === pending.hash) files.push({ seq: record.seq, file: pending.file, held: pending.held, command: pending.command });
    }
    return files;
  }

  /**
   * One file over what is beneath it (nothing for the user's, the user's values in force for
   * a project's): what of it applies, as configApproval.ts decides against its approved content.
   */
  private settle(scope: string, ref: ConfigFileRef, read: ReadFile, beneath: Layer, command: string, fallback?: Effective): { effective: Effective; layer: Layer } {
    this.pendingByScope.delete(scope);
    const approved = this.approvedFor(scope);
    const { answer: inForce, events } = decideConfig({
      type: 'SettleConfigFile',
      ...ref,
      read: { hash: read.hash, values: read.layer.values },
      approved,
      heldHash: this.heldHashFor(scope),
      beneath: beneath.values,
      now: this.now(),
    });
    this.record(scope, events);
    const approvedHash = events.findLast((e) => e.type === 'ConfigApproved')?.data.hash ?? approved?.hash ?? NO_FILE_HASH;
    const layer: Layer = { values: inForce.values, sources: {} };
    for (const [key, value] of Object.entries(inForce.values)) {
      layer.sources[key] = sameValue(value, read.layer.values[key]) ? (read.layer.sources[key] ?? ref.file) : asApproved(ref.file, approvedHash);
    }
    const combined = combine([beneath, layer]);
    if (!combined.ok) return { effective: fallback ?? DEFAULTS, layer: EMPTY_LAYER };
    const { config, sources } = combined.effective;
    for (const held of inForce.held) sources[held.key] = `${sources[held.key] ?? 'default'} (held: ${ref.file} sets ${JSON.stringify(held.to)}, waiting for ${command})`;
    if (inForce.held.length > 0) this.pendingByScope.set(scope, { file: ref.file, hash: read.hash, held: inForce.held, neverApproved: inForce.neverApproved, command });
    return { effective: { config, sources }, layer };
  }

  /**
   * The user's `recap config allow` (`--user`: of the user's file): the file is read as it is
   * now and approved whole. `expectedHash` refuses a file changed since it was shown. The
   * approval is among the facts to record (drain).
   */
  allow(target: { project?: string; job?: string }, expectedHash?: string, caller?: Caller): { ok: true; allowed: Allowed } | { ok: false; problems: string[] } {
    const { project } = target;
    const scope = project ?? USER_SCOPE;
    const file = project !== undefined ? projectConfigPath(project) : this.userFile;
    const command = project !== undefined ? ALLOW_COMMAND : ALLOW_USER_COMMAND;
    const before = this.forProject(project).config;
    if (project !== undefined) this.loadProject(project);
    else this.loadUser();
    const problems = this.problemsByFile.get(file);
    if (problems) return { ok: false, problems: [...problems, `correct ${file}, then run ${command} again`] };
    const read = (project !== undefined ? this.projectFiles.get(project) : this.userRead) ?? NO_FILE;
    const { answer, events } = decideConfig({
      type: 'AllowConfigFile',
      file,
      ...(project !== undefined ? { project } : {}),
      ...(target.job !== undefined && project !== undefined ? { job: target.job } : {}),
      read: { hash: read.hash, values: read.layer.values },
      approved: this.approvedFor(scope),
      ...(expectedHash !== undefined ? { expectedHash } : {}),
      ...(caller !== undefined ? { caller } : {}),
      now: this.now(),
    });
    this.record(scope, events);
    this.forget();
    const changes = configChanges(before, this.forProject(project).config);
    return { ok: true, allowed: { file, hash: read.hash, changes, already: answer.already } };
  }

  /** The facts decided since the last call, for the log: the caller appends them at once. */
  drain(): RecapEvent[] {
    if (this.outbox.length === 0) return NO_EVENTS;
    const events = this.outbox;
    this.outbox = [];
    this.unrecorded.clear();
    return events;
  }

  private record(scope: string, events: RecapEvent[]): void {
    for (const event of events) {
      if (event.type !== 'ConfigApproved' && event.type !== 'ConfigHeld') continue;
      this.unrecorded.set(scope, evolveFileRecord(this.recordOf(scope), event));
      this.outbox.push(event);
    }
  }

  /** The file's facts: those on record, with those decided since folded in. */
  private recordOf(scope: string): FileRecord {
    const decided = this.unrecorded.get(scope);
    if (decided !== undefined) return decided;
    const approved = this.records.approved(scope);
    const heldHash = this.records.held(scope)?.hash;
    return { ...(approved !== undefined ? { approved } : {}), ...(heldHash !== undefined ? { heldHash } : {}) };
  }

  private approvedFor(scope: string): FileContent | undefined {
    return this.recordOf(scope).approved;
  }

  private heldHashFor(scope: string): string | undefined {
    return this.recordOf(scope).heldHash;
  }

  /** A file read again or approved may change any configuration (the user's underlies them all). */
  private forget(): void {
    this.combined.clear();
    this.userInForce = undefined;
  }

  private memo(scope: string, make: () => Effective): Effective {
    let effective = this.combined.get(scope);
    if (effective === undefined) {
      effective = make();
      this.combined.set(scope, effective);
    }
    return effective;
  }

  /** Re-reads every file (SIGHUP); returns the problems found. */
  reload(): string[] {
    this.loadUser();
    for (const projectDir of this.projectFiles.keys()) this.loadProject(projectDir);
    return this.problems;
  }

  private loadUser(): void {
    const read = readConfigFile(this.userFile, this.env, this.userFile);
    this.keep(this.userFile, read, [read.layer], (layer) => {
      this.userRead = { layer, hash: read.hash };
    });
  }

  private loadProject(projectDir: string): void {
    const file = projectConfigPath(projectDir);
    const read = readConfigFile(file, this.env, this.userFile);
    if (!this.projectFiles.has(projectDir)) this.projectFiles.set(projectDir, NO_FILE);
    this.keep(file, read, [this.userSettled().layer, read.layer], (layer) => this.projectFiles.set(projectDir, { layer, hash: read.hash }));
  }

  /** Keeps a file's read when it has no problem at all, else its problems (every one, file's and bands'). */
  private keep(file: string, read: { layer: Layer; problems: string[] }, layers: Layer[], keep: (layer: Layer) => void): void {
    this.forget();
    const combined = combine(layers);
    const problems = [...read.problems, ...(combined.ok ? [] : combined.problems)];
    if (problems.length === 0) {
      keep(read.layer);
      this.problemsByFile.delete(file);
    } else {
      this.problemsByFile.set(file, problems);
    }
  }
}

const NO_EVENTS: RecapEvent[] = [];

function asApproved(file: string, hash: string): string {
  return `${file} as approved (sha256 ${hash.slice(0, 12)})`;
}

function sourcesOf(values: Record<string, unknown>, source: string): Record<string, string> {
  return Object.fromEntries(Object.keys(values).map((key) => [key, source]));
}
