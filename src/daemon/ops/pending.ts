// Ops whose contract is in protocol.ts and whose work is being built (issue 28): each says so
// instead of answering. Each is removed from here when its file in ops/ answers it.
import { ProtocolError } from '../../protocol/protocol.js';
import type { OpsOf } from './table.js';

const notYet = (op: string) => () => Promise.reject(new ProtocolError('internal', `${op} is not built yet in this version of recap`));

export const pendingOps: OpsOf<'decisions'> = {
  decisions: notYet('decisions'),
};
