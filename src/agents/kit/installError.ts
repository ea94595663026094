// The one error every agent's installer throws for a mistake in the user's files: recap
// writes nothing over it, and the CLI prints its message, which says what to do.
import { UserError } from '../../common/errors.js';

/** A mistake in the user's files that recap will not write over. */
export class InstallError extends UserError {}
