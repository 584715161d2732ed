/** See list-entries.mjs. */
export declare const KINDS: readonly ['file', 'directory', 'symlink', 'other'];
export declare const FIELDS: number;
export declare const NON_ASCII: RegExp;
export declare const LINE_BREAK: RegExp;
export declare const CONTENT_IMAGE_EXTS: Set<string>;
export declare function extDot(rel: string): number;
export interface Listing {
  /** Content-relative paths, forward slashes, sorted. */
  paths: string[];
  /** FIELDS numbers per path: kind (an index of KINDS), size, mtimeMs, ctimeMs, ino. */
  stats: Float64Array;
  /** sha256 (hex) of the paths and the numbers: equal digests, equal listings. */
  digest: string;
  /** Whether every path is ASCII (no name then has another spelling in Unicode NFC). */
  ascii: boolean;
}
/** Called once every folder is read, with the paths (NUL between them), the numbers on shared memory the lstats then fill (kinds set from the folder entries), and how many paths from the first are filled. */
export type OnWalked = (paths: string, stats: Float64Array, filled: Int32Array) => void;
export declare function listEntries(root: string, since: number | undefined, onChange: () => void, onWalked?: OnWalked): Listing & { walked: boolean };
