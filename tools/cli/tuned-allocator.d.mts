/** See tuned-allocator.mjs. */
export declare function rerunWithTunedAllocator(script: string, args: string[]): number | null;
export declare function tunedRerunPossible(): boolean;
