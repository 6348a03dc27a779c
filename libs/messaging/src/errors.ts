/** No connection to the broker: nothing was published. Callers answer 503, never 202. */
export class BrokerUnavailableError extends Error {
  override name = 'BrokerUnavailableError';
}

/** The broker did not take responsibility for the message (nack, unroutable, or no confirm in time). */
export class PublishRejectedError extends Error {
  override name = 'PublishRejectedError';
}
