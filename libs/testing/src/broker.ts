import { connect } from 'amqplib';
import { deadLetterQueueName } from '@bedrequest/contracts';

/** Removes a test's exchanges and queues (with their dead-letter queues) from the shared broker. */
export async function deleteBrokerTopology(
  url: string,
  topology: { eventsExchange: string; deadLetterExchange: string; queues: Record<string, { name: string }> },
): Promise<void> {
  // A cluster's nodes, comma-separated: one of them is enough (exchanges and queues are the cluster's).
  const connection = await connect(url.split(',')[0]?.trim() ?? url);
  try {
    const channel = await connection.createChannel();
    for (const { name } of Object.values(topology.queues)) {
      await channel.deleteQueue(name);
      await channel.deleteQueue(deadLetterQueueName(name));
    }
    await channel.deleteExchange(topology.eventsExchange);
    await channel.deleteExchange(topology.deadLetterExchange);
  } finally {
    await connection.close();
  }
}
