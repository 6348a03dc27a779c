import type { Stack } from '@bedrequest/stack';
import { metricSum } from '@bedrequest/testing';

/** What each service's V8 heap holds (used) and has taken (total), MiB, and its memory outside the heap (external). */
export type HeapSample = Record<string, { usedMiB: number; totalMiB: number; externalMiB: number }>;

/**
 * Read from each service's own metrics (`GET /metrics` on its internal port, prom-client's Node
 * defaults): resident memory alone does not say whether it is live objects, garbage V8 has not yet
 * collected, or memory outside the heap (buffers, the allocator).
 */
export async function heapOf(stack: Stack): Promise<HeapSample> {
  const sample: HeapSample = {};
  for (const instance of stack.instances()) {
    const text = await fetch(new URL('/metrics', instance.probeUrl)).then(
      (response) => response.text(),
      () => '',
    );
    const mib = (name: string) => Math.round((metricSum(text, name) / 2 ** 20) * 10) / 10;
    sample[instance.name] = {
      usedMiB: mib('nodejs_heap_size_used_bytes'),
      totalMiB: mib('nodejs_heap_size_total_bytes'),
      externalMiB: mib('nodejs_external_memory_bytes'),
    };
  }
  return sample;
}
