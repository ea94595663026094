// Limits of the protocol that the CLI checks before it asks: in a file of their own, so the
// CLI reads them without loading the request schemas (and zod).

/** The longest reason a trip keeps (`recap trip --reason`). */
export const MAX_TRIP_NOTE = 1000;
