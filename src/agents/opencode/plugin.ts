// recap's plugin for opencode. `recap install opencode` writes this file, compiled, into
// opencode's plugins folder with SETTINGS filled in (install.ts); opencode loads it into its
// own Bun runtime and awaits its hooks with no timeout of its own. So it imports nothing but
// runtime built-ins (recap may move; a plugin that fails to import is skipped silently), never
// waits unbounded, and never throws but to deny a tool call.
//
// Each hook becomes recap's neutral payload (facts.ts), asked of the daemon over its socket
// (the fast path, a few milliseconds), else of `recap-hook opencode`, run by Node, which
// starts a daemon that is down and answers from the daemon's verdict file and ON_DAEMON_DOWN
// when none answers. When recap-hook cannot answer either, a session whose job recap last
// called tripped has its tool calls denied, the exact way out excepted.
import { spawn } from 'node:child_process';
import { connect } from 'node:net';

/** What install.ts fills in: recap by absolute paths, as the user's environment named them at install. */
export type PluginSettings = {
  node: string;
  hookBin: string;
  socket: string;
  /** The launcher the way out runs (recap's messages name it). */
  launcher: string;
  /** Laid over opencode's environment for recap-hook (hookEnvironment). */
  environment: Record<string, string>;
  /** The payload's event names and the bash tool's session variable (facts.ts). */
  events: { prompt: string; tool: string; memory: string };
  sessionVariable: string;
};

// prettier-ignore
const SETTINGS: PluginSettings = /* recap:settings */ { node: '', hookBin: '', socket: '', launcher: '', environment: {}, events: { prompt: '', tool: '', memory: '' }, sessionVariable: '' };

/** The daemon answers in milliseconds: past this it is stalled or flooded, and recap-hook takes over. */
const SOCKET_MS = 3000;
/** recap-hook answers within its own 8 s deadline (starting the daemon included): past this it is stuck. */
const HOOK_MS = 12_000;
/** Asking opencode for a session's parent, when its creation was not seen. */
const LOOKUP_MS = 1000;
/** The daemon's largest frame is 64 MiB and a character takes up to 6 bytes in JSON: a longer prompt counts as far as this. */
const PROMPT_MAX = 10_000_000;
const MAX_FRAME = 64 * 1024 * 1024;
/** opencode's title request runs the system transform too: the memory is not for it. */
const TITLE_PROMPT = 'You are a title generator';

type Answer = { stdout: string; exitCode: number };
/** The daemon took the call and did not answer in time: stopped or flooded, not gone. */
class Stalled extends Error {}

/**
 * recap-hook's own deadline after the daemon stalled: it would wait for the same daemon, so it
 * is given just long enough to try once more and answer from the daemon's last verdicts.
 */
const HOOK_MS_AFTER_STALL = 1500;

/** recap-hook ran and was killed or got stuck: unlike a recap-hook that is gone, that is no allow. */
class Unanswered extends Error {}

/** What recap's answer says (facts.ts): deny the call, add context, tell the user. */
type Said = { deny?: string; context?: string; systemMessage?: string };
type Part = { type?: unknown; text?: unknown; synthetic?: unknown; id?: unknown };
type Client = {
  session?: { get?: (options: { path: { id: string } }) => Promise<{ data?: { parentID?: unknown } }> };
  app?: { log?: (options: { body: { service: string; level: string; message: string } }) => Promise<unknown> };
  tui?: { showToast?: (options: { body: { message: string; variant: string } }) => Promise<unknown> };
};
type Context = { directory: string; client?: Client };
type SessionState = { tripped: boolean; memory?: Promise<string> | undefined };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} gave no answer within ${ms / 1000} s`)), ms);
    promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

const isAnswer = (value: unknown): value is Answer => isObject(value) && typeof value.stdout === 'string' && typeof value.exitCode === 'number';

/** One `hook` request on the daemon's socket (src/daemon/protocol.ts): a 4-byte length, then JSON. */
function overSocket(payload: object): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = Buffer.from(JSON.stringify({ id: 1, op: 'hook', agent: 'opencode', payload }));
    if (body.length > MAX_FRAME) return reject(new Error('the call is too large for the socket'));
    const head = Buffer.alloc(4);
    head.writeUInt32BE(body.length);
    const socket = connect(SETTINGS.socket);
    let pending = Buffer.alloc(0);
    let settled = false;
    const done = (error: Error | undefined, answer?: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(answer!);
    };
    const timer = setTimeout(() => done(new Stalled(`the daemon gave no answer within ${SOCKET_MS / 1000} s`)), SOCKET_MS);
    socket.on('connect', () => socket.write(Buffer.concat([head, body])));
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= 4 + pending.readUInt32BE(0)) {
        const length = pending.readUInt32BE(0);
        let frame: unknown;
        try {
          frame = JSON.parse(pending.subarray(4, 4 + length).toString('utf8'));
        } catch {
          return done(new Error('the daemon sent a frame that is not JSON'));
        }
        pending = pending.subarray(4 + length);
        if (!isObject(frame) || frame.id !== 1 || 'progress' in frame) continue;
        if (isAnswer(frame.result)) return done(undefined, frame.result);
        return done(new Error(isObject(frame.error) ? `the daemon answered: ${String(frame.error.message)}` : 'the daemon answered in an unknown shape'));
      }
    });
    socket.on('error', (error) => done(error));
    socket.on('close', () => done(new Error('the daemon closed the connection')));
  });
}

/** `recap-hook opencode`, run by the Node recap was installed with, the payload on its stdin. */
function viaHook(payload: object, stalled = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const deadline = stalled ? { RECAP_HOOK_DEADLINE_MS: String(HOOK_MS_AFTER_STALL) } : {};
    const child = spawn(SETTINGS.node, [SETTINGS.hookBin, 'opencode'], { env: { ...process.env, ...SETTINGS.environment, ...deadline }, stdio: ['pipe', 'pipe', 'ignore'] });
    let stdout = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Unanswered(`recap-hook gave no answer within ${HOOK_MS / 1000} s`));
    }, HOOK_MS);
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`recap-hook could not run: ${error.message}`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (signal !== null) reject(new Unanswered(`recap-hook was killed (${signal}) before it answered`));
      else resolve({ stdout, exitCode: code ?? 1 });
    });
    // recap-hook stops reading a payload over its limit (and denies it): the rest of the write fails.
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify(payload));
  });
}

/** What an answer says; undefined when it is not recap's (then the next way of asking is tried). */
function read(answer: Answer): Said | undefined {
  if (answer.stdout.trim() === '') return answer.exitCode === 0 ? {} : undefined;
  try {
    const value: unknown = JSON.parse(answer.stdout);
    if (!isObject(value)) return undefined;
    const said: Said = {};
    for (const key of ['deny', 'context', 'systemMessage'] as const) if (typeof value[key] === 'string') said[key] = value[key];
    return said;
  } catch {
    return undefined;
  }
}

/**
 * The daemon's answer, else recap-hook's; undefined (with why) when neither could give one,
 * and `stopped` when recap-hook ran but was killed or stuck.
 */
async function ask(payload: object): Promise<{ said: Said } | { said: undefined; why: string; stopped: boolean }> {
  const problems: string[] = [];
  let stalled = false;
  let stopped = false;
  for (const way of [overSocket, (p: object) => viaHook(p, stalled)]) {
    try {
      const said = read(await way(payload));
      if (said !== undefined) return { said };
      problems.push('an answer recap does not know');
    } catch (error) {
      problems.push((error as Error).message);
      stalled ||= error instanceof Stalled;
      stopped = error instanceof Unanswered;
    }
  }
  return { said: undefined, why: problems.join('; '), stopped };
}

/**
 * A deny that asks for a summary (the gate's, or recap-hook's from the daemon's last verdict):
 * the session's job is tripped. Other denies (recap's files are off limits) say nothing of the gate.
 */
const GATE_DENY = /needs a summary|last knew job \S+ as tripped/;

/** The most sessions remembered; the oldest are forgotten first. */
const MAX_SESSIONS = 10_000;

function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key);
  if (map.size >= MAX_SESSIONS) map.delete(map.keys().next().value as K);
  map.set(key, value);
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The read-only commands, as plain text: a search's query is a bare word or one in single
 * quotes (nothing inside is expanded), and every option's value is made of safe characters.
 */
const READS =
  "(?:status|context|chain|decisions|show (?:[1-9]\\d{0,14}|'#?[1-9]\\d{0,14}')" +
  "|search (?:[A-Za-z0-9_.]+|'[^'\\n-][^'\\n]*')(?: --all-jobs| --(?:topic|since) [\\w:.][\\w:.-]*| --limit [1-9]\\d{0,2})*" +
  '|timeline(?: [1-9]\\d{0,14})?(?: --at [\\w:.][\\w:.-]*| --(?:before|after) \\d{1,2})*)';

/**
 * Whether a bash call is exactly the way out recap names: the launcher's status, context,
 * chain, show N, decisions, search QUERY or timeline [N], or its submit with a quoted here-document and nothing after it. Stricter than
 * recap's own whitelist (src/events/whitelist.ts), which cannot run here: it lets through
 * less, never more.
 */
function isWayOut(tool: string, args: unknown): boolean {
  const command = isObject(args) ? args.command : undefined;
  if (tool !== 'bash' || typeof command !== 'string' || SETTINGS.launcher === '') return false;
  if (new RegExp(`^${escapeRegex(SETTINGS.launcher)} ${READS}(?: --json)?$`).test(command)) return true;
  const head = `${SETTINGS.launcher} submit <<'EOF'\n`;
  if (!command.startsWith(head)) return false;
  const lines = command.slice(head.length).replace(/\n$/, '').split('\n');
  return lines.at(-1) === 'EOF' && !lines.slice(0, -1).includes('EOF');
}

/** The sessions opencode runs, each under the one the user started, and what recap last knew of each such root's gate. */
class SessionTree {
  /** Each session's parent, as opencode created it (undefined for a session the user started). */
  private readonly parents = new Map<string, string | undefined>();
  private readonly states = new Map<string, SessionState>();

  constructor(private readonly client: Client | undefined) {}

  created(session: string, parent: string | undefined): void {
    remember(this.parents, session, parent);
  }

  stateOf(root: string): SessionState {
    let state = this.states.get(root);
    if (state === undefined) remember(this.states, root, (state = { tripped: false }));
    return state;
  }

  /** The session the user started, which a subagent's session (and its own subagents') belongs to. */
  async rootOf(session: string): Promise<string> {
    let current = session;
    for (let depth = 0; depth < 32; depth += 1) {
      if (!this.parents.has(current)) remember(this.parents, current, await this.parentOf(current));
      const parent = this.parents.get(current);
      if (parent === undefined) return current;
      current = parent;
    }
    return current;
  }

  /** A session whose creation this plugin did not see (one continued with --session): opencode is asked. */
  private async parentOf(session: string): Promise<string | undefined> {
    try {
      const found = await within(this.client!.session!.get!({ path: { id: session } }), LOOKUP_MS, 'opencode');
      return typeof found?.data?.parentID === 'string' ? found.data.parentID : undefined;
    } catch {
      return undefined; // Taken for the user's own: its prompts count, which errs on the side of summarizing.
    }
  }
}

/** Tells the user: in opencode's log, and as a toast in its TUI. Never awaited. */
function teller(client: Client | undefined): (message: string) => void {
  return (message) => {
    for (const say of [
      () => client?.app?.log?.({ body: { service: 'recap', level: 'warn', message } }),
      () => client?.tui?.showToast?.({ body: { message, variant: 'warning' } }),
    ]) {
      Promise.resolve()
        .then(say)
        .catch(() => undefined);
    }
  };
}

/** What the plugin knows while opencode runs it: its folder, its sessions, and how to tell the user. */
type Plugin = { directory: string; tree: SessionTree; tell: (message: string) => void };

const payload = (directory: string, event: string, session: string, root: string, fields: Record<string, unknown> = {}) => ({
  hook_event_name: event,
  cwd: directory,
  session_id: root,
  ...(root !== session ? { agent_id: session } : {}),
  ...fields,
});

/** Why a tool call is denied, or undefined to let it run. */
async function judge({ directory, tree, tell }: Plugin, tool: string, session: string, callID: unknown, args: unknown): Promise<string | undefined> {
  const root = await tree.rootOf(session);
  const state = tree.stateOf(root);
  const asked = await ask(
    payload(directory, SETTINGS.events.tool, session, root, { tool_name: tool, ...(typeof callID === 'string' ? { call_id: callID } : {}), tool_input: args }),
  );
  if (asked.said === undefined) {
    if ((state.tripped || asked.stopped) && !isWayOut(tool, args)) {
      const why = asked.stopped ? 'recap-hook ran but was stopped before it answered' : "recap last knew this session's job as tripped";
      return (
        `recap: neither recap's daemon nor recap-hook answered (${asked.why}), and ${why}, ` +
        `so every tool but the way out is denied: submit the summary with the ${SETTINGS.launcher} submit command recap named. ` +
        'If this goes on, ask the user to run: recap doctor'
      );
    }
    tell(`recap: neither recap's daemon nor recap-hook answered (${asked.why}); this ${tool} call was not checked. Run: recap doctor`);
    return undefined;
  }
  const { said } = asked;
  if (said.systemMessage !== undefined) tell(said.systemMessage);
  // The gate as the answers tell it: a deny that asks for a summary means tripped, a call
  // that runs (the way out aside, which runs either way) means open.
  const tripped = said.deny !== undefined ? GATE_DENY.test(said.deny) || state.tripped : isWayOut(tool, args) ? state.tripped : false;
  // The gate changed (tripped, or opened by a summary): the memory is asked for again.
  if (tripped !== state.tripped) Object.assign(state, { tripped, memory: undefined });
  return said.deny;
}

export const RecapPlugin = async ({ directory, client }: Context) => {
  const tree = new SessionTree(client);
  const tell = teller(client);
  const plugin: Plugin = { directory, tree, tell };

  return {
    event: async ({ event }: { event?: { type?: unknown; properties?: { info?: { id?: unknown; parentID?: unknown } } } }) => {
      const info = event?.type === 'session.created' ? event.properties?.info : undefined;
      if (typeof info?.id === 'string') tree.created(info.id, typeof info.parentID === 'string' ? info.parentID : undefined);
    },

    'chat.message': async (input: { sessionID?: unknown }, output: { parts?: unknown }) => {
      // A throw here would reject the user's message: whatever happens, it goes on.
      try {
        if (typeof input?.sessionID !== 'string') return;
        const session = input.sessionID;
        const root = await tree.rootOf(session);
        const parts: Part[] = Array.isArray(output?.parts) ? (output.parts as Part[]) : [];
        const texts = parts.filter((p) => p?.type === 'text' && p.synthetic !== true && typeof p.text === 'string').map((p) => p.text as string);
        const state = tree.stateOf(root);
        // A new user message: the memory is asked for once more, at the next model call.
        if (root === session) state.memory = undefined;
        const { said } = await ask(payload(directory, SETTINGS.events.prompt, session, root, { prompt: texts.join('\n').slice(0, PROMPT_MAX) }));
        if (said === undefined) return;
        if (said.systemMessage !== undefined) tell(said.systemMessage);
        if (root === session) state.tripped = said.context !== undefined;
        const first = parts.find((p) => p?.type === 'text');
        // The gate's notice rides with the user's words: a synthetic part, which recap never counts.
        if (said.context !== undefined && first !== undefined) parts.push({ ...first, id: `${String(first.id)}recap`, text: said.context, synthetic: true });
      } catch {
        // Nothing to add.
      }
    },

    'experimental.chat.system.transform': async (input: { sessionID?: unknown }, output: { system?: unknown }) => {
      try {
        if (typeof input?.sessionID !== 'string' || !Array.isArray(output?.system)) return;
        const system = output.system as unknown[];
        if (typeof system[0] === 'string' && system[0].startsWith(TITLE_PROMPT)) return;
        const session = input.sessionID;
        const root = await tree.rootOf(session);
        // A subagent works from the task its caller wrote, who has the memory.
        if (root !== session) return;
        const state = tree.stateOf(root);
        // Asked once per user message and gate change, not on every model call; none when recap cannot answer.
        state.memory ??= ask(payload(directory, SETTINGS.events.memory, session, root)).then(({ said }) => said?.context ?? '');
        const memory = await state.memory;
        if (memory !== '') system.push(memory);
      } catch {
        // No memory this time.
      }
    },

    'tool.execute.before': async (input: { tool?: unknown; sessionID?: unknown; callID?: unknown }, output: { args?: unknown }) => {
      let reason: string | undefined;
      try {
        reason = await judge(plugin, typeof input?.tool === 'string' ? input.tool : '', typeof input?.sessionID === 'string' ? input.sessionID : '', input?.callID, output?.args);
      } catch (error) {
        reason = `recap: this tool call could not be checked (${(error as Error).message}), so it is denied. If this goes on, ask the user to run: recap doctor`;
      }
      // opencode hands the model the thrown message, unchanged, as the tool's result.
      if (reason !== undefined) throw new Error(reason);
    },

    'shell.env': async (input: { sessionID?: unknown }, output: { env?: unknown }) => {
      try {
        if (typeof input?.sessionID === 'string' && isObject(output?.env)) output.env[SETTINGS.sessionVariable] = await tree.rootOf(input.sessionID);
      } catch {
        // recap submit then finds the job by the folder.
      }
    },
  };
};
