// Bounded concurrency for per-message JetStream requests (one message get or delete each): enough in flight to
// hide the round trip, few enough not to queue thousands of requests on one connection at once.

/** `fn` over `items` with at most `limit` calls running; results in the items' order; the first failure rejects. */
export async function mapInParallel<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (next < items.length && !failed) {
      const i = next++;
      try {
        results[i] = await fn(items[i] as T);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
