/* eslint-disable @typescript-eslint/no-explicit-any -- the figures are read back from their JSON, each of its own shape: typing every one would only restate the figures */
import { fmt, spread, verdict } from './report-format';

/** Figure 3 (figure-webhooks.ts). */
export function webhookLines(w: any): string[] {
  return [
    `${w.eventsPerRun} events over ${w.distinctRequests} requests per run, to a local receiver.`,
    '',
    `| notifier processes | deliveries/s |`,
    '|---|---|',
    `| 1 | ${spread(w.oneNotifierPerSecond)} |`,
    // Older results have no id-only runs.
    ...(w.oneNotifierIdOnlyPerSecond ? [`| 1, payload \`id-only\` | ${spread(w.oneNotifierIdOnlyPerSecond)} |`] : []),
    `| 2 | ${spread(w.twoNotifiersPerSecond)} |`,
    '',
    `Target ${w.target}/s with one: ${verdict(w.oneNotifierPerSecond.median >= w.target)}. Two ÷ one: ${fmt(w.twoNotifiersPerSecond.median / w.oneNotifierPerSecond.median, 2)}; target ≥ 1.0: ${verdict(w.twoNotifiersPerSecond.median >= w.oneNotifierPerSecond.median)}.`,
    '',
  ];
}

/** Figure 3b (figure-encryption.ts). */
export function encryptionLines(e: any): string[] {
  return [
    `One notifier process of the same build, storing webhook secrets and Tasks sealed (AES-256-GCM, a configured DATA_KEK) or the same bytes unsealed in the same columns; ${e.eventsPerRun} events over ${e.distinctRequests} requests per run, a fresh process and schema per run, the two alternating (${e.sealedPerSecond.runs.length} runs each).`,
    '',
    '| | deliveries/s | notifier CPU ms per event | PostgreSQL CPU ms per event |',
    '|---|---|---|---|',
    `| sealed | ${spread(e.sealedPerSecond)} | ${spread(e.notifierCpuMsPerEvent.sealed, 3)} | ${spread(e.postgresCpuMsPerEvent.sealed, 3)} |`,
    `| unsealed | ${spread(e.clearPerSecond)} | ${spread(e.notifierCpuMsPerEvent.clear, 3)} | ${spread(e.postgresCpuMsPerEvent.clear, 3)} |`,
    '',
    `Sealed ÷ unsealed: deliveries/s ${fmt(e.ratioSealedToClear, 2)}, notifier CPU per event ${fmt(e.notifierCpuRatioSealedToClear, 2)} (medians). The cryptography of one event alone (seal the Task, open it, open the secret), measured in the bench process: ${spread(e.cryptographyMicrosecondsPerEvent, 1)} µs of CPU.`,
    '',
  ];
}

/** Figure 3c (figure-intake-encryption.ts). */
export function intakeEncryptionLines(e: any): string[] {
  const row = (label: string, phase: any, variant: 'sealed' | 'clear') =>
    `| ${label} | ${spread(phase.perSecond[variant])} | ${spread(phase.intakeCpuMsPerBundle[variant], 3)} | ${spread(phase.postgresCpuMsPerBundle[variant], 3)} |`;
  return [
    `One intake process of the same build, sealing bundles, their summaries and its verdicts (AES-256-GCM, a configured DATA_KEK) or storing the same bytes unsealed in the same columns. What the gateway sends (the bundle of figure 1 with the summary the gateway read) published straight to intake's queue, ${e.inFlight} awaiting their verdicts at a time: ${e.bundlesPerPhase.toLocaleString('en-US')} new requests, then a supplement of each (the same request with a note added: a new version), after ${e.warmUpPerPhase} of each not measured. Bundles per second until the last verdict; CPU from /proc once intake's outbox was empty too (so with relaying the dispatches). A fresh process and schema per run, the two alternating (${e.newRequests.perSecond.sealed.runs.length} runs each).`,
    '',
    '| | bundles/s | intake CPU ms per bundle | PostgreSQL CPU ms per bundle |',
    '|---|---|---|---|',
    row('new requests, sealed', e.newRequests, 'sealed'),
    row('new requests, unsealed', e.newRequests, 'clear'),
    row('supplements, sealed', e.supplements, 'sealed'),
    row('supplements, unsealed', e.supplements, 'clear'),
    '',
    `Sealed ÷ unsealed (medians): new requests ${fmt(e.newRequests.ratioSealedToClear, 2)} in bundles/s and ${fmt(e.newRequests.intakeCpuRatioSealedToClear, 2)} in intake CPU per bundle; supplements ${fmt(e.supplements.ratioSealedToClear, 2)} and ${fmt(e.supplements.intakeCpuRatioSealedToClear, 2)}. A bundle version takes ${fmt(e.storedBundleBytes.sealed.median)} bytes in its column sealed and ${fmt(e.storedBundleBytes.clear.median)} unsealed: PostgreSQL compresses the unsealed JSON when it stores it (TOAST), and gains nothing on ciphertext. The cryptography of one bundle alone (seal the bundle, its summary and the verdict), measured in the bench process: ${spread(e.cryptographyMicrosecondsPerBundle, 1)} µs of CPU.`,
    '',
  ];
}

/** Figure 5 (figure-persistence.ts). */
export function persistenceLines(p: any): string[] {
  return [
    `New requests in batches of ${p.batchSize} (one statement reads the batch's state, one writes it), ${p.bundlesPerRun} per run, ${p.concurrency} batches concurrent; the same statements through Prisma's \`$queryRaw\` and through a plain \`pg\` pool.`,
    '',
    `Prisma ${spread(p.prismaPerSecond)} bundles/s; raw pg ${spread(p.rawPgPerSecond)} bundles/s; ratio ${spread(p.ratioPrismaToPg, 2)}; target ${p.target}: ${verdict(p.ratioPrismaToPg.median >= p.target)}.`,
    '',
  ];
}

/** Figure 6 (main.ts, heap.ts): read once the run's other figures are done. */
export function memoryLines(m: any): string[] {
  const names = Object.keys(m.idle);
  const highest = Math.max(...names.map((name) => Number(m.afterLoad[name] ?? 0)));
  const only: string[] | null | undefined = m.run?.only;
  return [
    ...(only === undefined ? [] : [`After the load of the figures of its run: ${only === null ? 'all' : only.join(', ')}.`, '']),
    `| | ${names.join(' | ')} |`,
    `|---|${names.map(() => '---').join('|')}|`,
    `| idle | ${names.map((name) => m.idle[name]).join(' | ')} |`,
    `| after load | ${names.map((name) => m.afterLoad[name] ?? '').join(' | ')} |`,
    ...(m.heapAfterLoad
      ? [
          `| V8 heap used / taken after load | ${names.map((name) => (m.heapAfterLoad[name] ? `${m.heapAfterLoad[name].usedMiB} / ${m.heapAfterLoad[name].totalMiB}` : '')).join(' | ')} |`,
          `| outside the heap (external) after load | ${names.map((name) => m.heapAfterLoad[name]?.externalMiB ?? '').join(' | ')} |`,
        ]
      : []),
    '',
    `Target < 200 MiB per service after load: ${verdict(highest < 200)}.`,
    '',
  ];
}
