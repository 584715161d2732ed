/** See tuned-allocator.mjs. */
export declare function rerunWithTunedAllocator(script: string, args: string[]): number | null;
export declare function tunedRerunPossible(): boolean;
export declare const BUILD_V8_FLAGS: string[];
export declare function setBuildFlags(): void;
export declare const SERVE_V8_FLAGS: string[];
export declare function execWithServeFlags(script: string, args: string[]): void;
export declare const TUNED_BUILD_FROM: number;
export declare function lastBuildRecords(args: string[], cwd?: string): number;
export declare function largeLastBuild(args: string[], cwd?: string): boolean;
export declare function execWithTunedAllocator(script: string, args: string[]): void;
export declare function collectOldGeneration(): void;
