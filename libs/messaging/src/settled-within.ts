/** Waits until every piece of `work` has settled, or `timeoutMs` has passed, whichever comes first. */
export async function settledWithin(work: Promise<unknown>[], timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  await Promise.race([Promise.allSettled(work), timeout]);
  clearTimeout(timer);
}
