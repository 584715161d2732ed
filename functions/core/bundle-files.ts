/**
 * How a host that loads function bundles itself (`pepe serve`) talks to a bundle about the
 * files it reads at run time (its pieces file): the handler carries a function under each key.
 * Symbols, not named exports: Netlify reads the module's exports, and never calls these.
 * Symbol.for, so that the bundle (which inlines its own copy of this module) and `pepe serve`
 * agree on them.
 */

/**
 * Closes the files the bundle holds open: called on the bundle of a build that a rebuild
 * replaced, once no request can reach it any more.
 */
export const RELEASE_FILES = Symbol.for('pepe.releaseFiles');

/**
 * Throws, naming the file and the fix, when a file the bundle reads at run time is missing or
 * damaged: called when a bundle is loaded, so that `pepe serve` refuses a broken build at start
 * (or keeps serving the previous one after a rebuild) instead of answering every search with a 500.
 */
export const CHECK_FILES = Symbol.for('pepe.checkFiles');

/** A handler that may hold files open until told to release them, and can say whether they are usable. */
export type FileHoldingHandler = { [RELEASE_FILES]?: () => void; [CHECK_FILES]?: () => void };
