// The broker cluster fault's measures: where a quorum queue's leader is, and the rate of accepted
// POSTs before and after a fault.
import type { RabbitMqCluster, RabbitMqNode } from '@bedrequest/testing';
import { accepted, type PostRecord } from './load';

export interface QuorumPlacement {
  leader: string;
  members: string[];
}

/** A quorum queue's leader and members as `node` sees them (`rabbitmqctl list_queues name leader members`). */
export async function quorumPlacement(node: RabbitMqNode, queue: string): Promise<QuorumPlacement | undefined> {
  const output = await node.ctl('list_queues', '--quiet', '--formatter', 'json', '--timeout', '10', 'name', 'leader', 'members');
  const rows = JSON.parse(output) as { name: string; leader: string; members: string[] }[];
  const row = rows.find((each) => each.name === queue);
  return row ? { leader: row.leader, members: [...row.members].sort() } : undefined;
}

/**
 * Who is connected to `node`: the users of the connections it holds, counted. `rabbitmqctl
 * list_connections` lists the whole cluster's; those made to another node's port are left out.
 */
export async function connectionsOn(node: RabbitMqNode): Promise<Map<string, number>> {
  const rows = JSON.parse(await node.ctl('list_connections', '--quiet', '--formatter', 'json', 'user', 'port')) as { user: string; port: number | string }[];
  const counts = new Map<string, number>();
  for (const { user } of rows.filter((row) => Number(row.port) === node.amqpPort)) counts.set(user, (counts.get(user) ?? 0) + 1);
  return counts;
}

/** An instance's answers to POST /api/v2/fhir/Bundle so far, by status, from its /metrics (http_requests_total). */
export async function bundlePostsOf(probeUrl: string): Promise<Map<string, number>> {
  const metrics = await (await fetch(`${probeUrl}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
  const counts = new Map<string, number>();
  for (const line of metrics.split('\n')) {
    const [, labels = '', count = '0'] = /^http_requests_total\{(.*)\} (\d+)$/.exec(line) ?? [];
    if (!labels.includes('method="POST"') || !labels.includes('route="/api/v2/fhir/Bundle"')) continue;
    const status = /status="(\d+)"/.exec(labels)?.[1] ?? '?';
    counts.set(status, (counts.get(status) ?? 0) + Number(count));
  }
  return counts;
}

/** The queue's leader as the running nodes but `except` see it, once it is one of them (a new election is over). */
export async function leaderAmong(cluster: RabbitMqCluster, queue: string, except: string): Promise<string | undefined> {
  const asker = cluster.nodes.find((node) => node.node !== except && node.pid !== undefined);
  if (!asker) return undefined;
  const placement = await quorumPlacement(asker, queue).catch(() => undefined);
  return placement && placement.leader !== except && cluster.nodes.some((node) => node.node === placement.leader) ? placement.leader : undefined;
}

/** Accepted POSTs (202) answered per second within [from, to). */
export function acceptedRate(posts: readonly PostRecord[], from: number, to: number): number {
  return accepted(posts).filter((post) => post.answeredAt >= from && post.answeredAt < to).length / ((to - from) / 1000);
}

/** The window over which the rate after a fault is compared with the rate before it. */
export const RATE_WINDOW_MS = 3_000;

/** The fault's dip is looked for within this long after it: its connections close at once, a new leader is elected within seconds. */
const DIP_WITHIN_MS = 10_000;

/**
 * When the rate of accepted POSTs was back at `level` after a fault at `from`: the start of the
 * first window of RATE_WINDOW_MS (sliding by 250 ms) that reaches it at or after the fault's dip
 * (the lowest window starting within DIP_WITHIN_MS); `from` itself when even the dip reached it;
 * undefined when the rate was not back before `until`. Later dips (other work on the machine) do
 * not count against the fault.
 */
export function rateBackAt(posts: readonly PostRecord[], from: number, level: number, until: number): number | undefined {
  const rateFrom = (start: number) => acceptedRate(posts, start, start + RATE_WINDOW_MS);
  let dip = from;
  for (let start = from; start < from + DIP_WITHIN_MS && start + RATE_WINDOW_MS <= until; start += 250) {
    if (rateFrom(start) < rateFrom(dip)) dip = start;
  }
  if (rateFrom(dip) >= level) return from;
  for (let start = dip; start + RATE_WINDOW_MS <= until; start += 250) {
    if (rateFrom(start) >= level) return start;
  }
  return undefined;
}
