/** See tuned-allocator.mjs. */
export declare const MALLOC_TUNABLES: string;
export declare function rerunWithTunedAllocator(script: string, args: string[]): number | null;
export declare function tunedRerunPossible(): boolean;
