/**
 * Runs tasks with at most `concurrency` in flight. The first failure stops new tasks from
 * starting (the ones in flight finish), and is returned: a publish must never go on to the
 * next group after an error.
 */
export async function runPool<T>(items: readonly T[], concurrency: number, task: (item: T) => Promise<void>): Promise<unknown | null> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async (): Promise<void> => {
    while (failure === null && next < items.length) {
      const item = items[next++]!;
      try {
        await task(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return failure === null ? null : (failure as { error: unknown }).error;
}
