// The op table's shape: one function per op, each answering as protocol.ts says. Each file
// of ops/ exports its part; the handler puts them together and the compiler checks that
// every op has its function.
import type { Caller } from '../../events/caller.js';
import type { Op, RequestOf, ResponseOf } from '../../protocol/protocol.js';

export type OpFunction<O extends Op> = (r: RequestOf<O>, progress?: (done: number) => void, by?: Caller) => Promise<ResponseOf<O>>;

/** A check decided in the turn answers as it is (an open gate): no promise made for it, on every tool call. */
type CheckFunction = (r: RequestOf<'check'>) => ResponseOf<'check'> | Promise<ResponseOf<'check'>>;

export type OpTable = { [O in Op]: O extends 'check' ? CheckFunction : OpFunction<O> };

/** A part of the op table. */
export type OpsOf<K extends Op> = Pick<OpTable, K>;

/** Drops the optional fields a request left out, so commands carry no `undefined`. */
export function defined<T extends Record<string, unknown>>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  // A plain loop: it runs on every check.
  const kept: Record<string, unknown> = {};
  for (const key in value) if (value[key] !== undefined) kept[key] = value[key];
  return kept as never;
}
