/** See compiled-cli.mjs. */
export declare const INLINED: Set<string>;
export declare function loadCompiledCli(options?: { root?: string; entry?: string; cacheDir?: string }): Promise<{ module: Record<string, unknown>; compiled: boolean; dir: string }>;
