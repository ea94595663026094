// What a command is decided with, made once and kept: the job's configuration, its token
// counter (loaded once per encoding), recap's protected files as the project's calls see
// them, and for checks the whole context per configuration, project and shell tool.
import type { Config } from '../events/config.js';
import type { DecideContext } from '../events/decision.js';
import type { ProtectedState } from '../events/protection.js';
import type { RecapProcesses } from '../events/recapSignals.js';
import { tokenCounter } from '../common/tokenCounter.js';
import type { TokenCounter } from '../events/tokens.js';
import { protectionFor } from '../agents/recapPaths.js';
import type { ConfigService, Effective } from './configService.js';

/** What a command is decided with: the job's configuration and its token counter. */
export type Prepared = { decide: DecideContext; effective: Effective };

/** recap's files and processes, which the agent may not touch. */
export type Protected = {
  recapPaths: ReadonlySet<string>;
  /** recap's files the agent may not touch (data folder, socket folder, user config). */
  protectedPaths: string[];
  /** What wires recap in and runs it: the agent may read these, never change them. */
  readOnlyPaths?: string[];
  /** Folders where a recap, recap-hook or node would shadow the real one on PATH. */
  shadowDirs?: string[];
  home: string;
  /** recap's daemon as a process (pid, names), which no signal from the agent may reach. */
  recapProcesses?: RecapProcesses;
};

/** How many entries each cache keeps before it starts again. */
const MAX_KEPT = 10_000;

export class Preparer {
  private readonly counters = new Map<string, Promise<TokenCounter>>();
  private readonly protectedStates = new Map<string | undefined, ProtectedState>();
  /**
   * Checks' contexts, made once per configuration (Effective objects are replaced, not
   * changed, when a file changes), project and shell tool: a check then allocates none.
   */
  private readonly checkContexts = new WeakMap<Effective, Map<string | undefined, Map<string | undefined, Prepared>>>();

  constructor(
    private readonly config: ConfigService,
    private readonly paths: Protected,
  ) {}

  /** The configuration for a project (the user's outside any), its token counter, its protected files. */
  async prepare(project: string | undefined): Promise<Prepared> {
    const effective = this.config.forProject(project);
    const count = await this.counter(effective.config);
    return {
      decide: { config: effective.config, count, recapPaths: this.paths.recapPaths, protected: this.protectedFor(project) },
      effective,
    };
  }

  /** A check's context, if its token counter is loaded (else undefined: use prepareCheck). */
  preparedNow(project: string | undefined, shellTool: string | undefined): Prepared | undefined {
    const effective = this.config.forProject(project);
    // Looked up by project, then shell tool: no key string made per check.
    return this.checkContexts.get(effective)?.get(project)?.get(shellTool);
  }

  async prepareCheck(project: string | undefined, shellTool: string | undefined): Promise<Prepared> {
    const ctx = await this.prepare(project);
    if (shellTool !== undefined) ctx.decide = { ...ctx.decide, shellTool };
    // Kept only if the configuration did not change meanwhile.
    if (this.config.forProject(project) !== ctx.effective) return ctx;
    let byProject = this.checkContexts.get(ctx.effective);
    if (byProject === undefined) this.checkContexts.set(ctx.effective, (byProject = new Map()));
    if (byProject.size >= MAX_KEPT) byProject.clear();
    let byTool = byProject.get(project);
    if (byTool === undefined) byProject.set(project, (byTool = new Map()));
    byTool.set(shellTool, ctx);
    return ctx;
  }

  /** The counter for a configuration's encoding, loaded once and shared. */
  counter(config: Config): Promise<TokenCounter> {
    const key = `${config.TOKEN_ENCODING}:${config.TOKEN_WORD_RATIO}`;
    let counter = this.counters.get(key);
    if (!counter) {
      counter = tokenCounter(config);
      this.counters.set(key, counter);
    }
    return counter;
  }

  /** recap's files as a project's calls see them, made once per project: every check asks. */
  private protectedFor(project: string | undefined): ProtectedState {
    let state = this.protectedStates.get(project);
    if (state === undefined) {
      const p = this.paths;
      const base = {
        paths: p.protectedPaths,
        readOnly: p.readOnlyPaths ?? [],
        shadowDirs: p.shadowDirs ?? [],
        home: p.home,
        ...(p.recapProcesses && { recapProcesses: p.recapProcesses }),
      };
      state = protectionFor(base, project);
      if (this.protectedStates.size >= MAX_KEPT) this.protectedStates.clear();
      this.protectedStates.set(project, state);
    }
    return state;
  }
}
