// A process as the system tells it: the type, where recap's older modules and tests name it.
// Reading processes is the platform's (src/platform).
export type { Proc } from '../platform/platform.js';
