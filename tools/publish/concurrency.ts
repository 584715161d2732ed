/**
 * How many requests `pepe publish` keeps in flight: the default and the range the CLI
 * accepts. Its own module, free of the AWS SDK, because the CLI reads these to parse its flags
 * and print its usage before it loads the publisher (and the SDK with it).
 */

/** Requests in flight when the caller sets none: publishBuild's default, `--concurrency`'s, and the one the usage text shows. */
export const DEFAULT_CONCURRENCY = 8;
/** `--concurrency` bounds: at least one request, and no more than a bucket is expected to take from one client without throttling. */
export const MIN_CONCURRENCY = 1;
export const MAX_CONCURRENCY = 64;
