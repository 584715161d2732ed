/**
 * How a host that replaces a loaded function bundle (`pepe serve` after a rebuild) tells the
 * old one to close the files it holds open: the handler carries a function under this key.
 * A symbol, not a named export: Netlify reads the module's exports, and never calls this.
 * Symbol.for, so that the bundle (which inlines its own copy of this module) and `pepe serve`
 * agree on it.
 */
export const RELEASE_FILES = Symbol.for('pepe.releaseFiles');

/** A handler that may hold files open until told to release them. */
export type ReleasingHandler = { [RELEASE_FILES]?: () => void };
