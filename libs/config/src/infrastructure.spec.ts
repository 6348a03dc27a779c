import { addressOf, addressesOf, describeInfrastructure, postgresOf, rabbitMqOf, redisOf, startHintOf } from './infrastructure';

describe('infrastructure', () => {
  it('names host and port, never the credentials of the URL', () => {
    const broker = rabbitMqOf({ AMQP_URL: 'amqp://guest:secret@broker.internal:5673/vhost' });
    expect(describeInfrastructure(broker)).toBe('RabbitMQ at broker.internal:5673');
    expect(describeInfrastructure(broker)).not.toContain('secret');
  });

  it('names every node of a broker cluster, and the first as its address', () => {
    const cluster = rabbitMqOf({ AMQP_URL: 'amqp://u:secret@mq-0:5672,amqp://u:secret@mq-1:5673,amqps://u:secret@mq-2' });
    expect(describeInfrastructure(cluster)).toBe('RabbitMQ at mq-0:5672, mq-1:5673, mq-2:5671');
    expect(addressesOf(cluster)).toEqual([
      { host: 'mq-0', port: 5672 },
      { host: 'mq-1', port: 5673 },
      { host: 'mq-2', port: 5671 },
    ]);
    expect(addressOf(cluster)).toEqual({ host: 'mq-0', port: 5672 });
  });

  it('takes the protocol’s port where the URL names none', () => {
    expect(addressOf(postgresOf({ DATABASE_URL: 'postgresql://postgres@db/bedrequest' }))).toEqual({ host: 'db', port: 5432 });
    expect(addressOf(redisOf({ REDIS_URL: 'redis://[::1]' }))).toEqual({ host: '::1', port: 6379 });
    expect(describeInfrastructure(redisOf({ REDIS_URL: 'redis://[::1]' }))).toBe('Redis at [::1]:6379');
    expect(addressOf(rabbitMqOf({ AMQP_URL: 'amqps://mq.example.org' }))).toEqual({ host: 'mq.example.org', port: 5671 });
  });

  it('says how to start each one: its docker compose service, or the variable to set', () => {
    expect(startHintOf(postgresOf({ DATABASE_URL: 'postgresql://127.0.0.1/x' }))).toBe(
      'start it (`docker compose up -d postgres`) or point DATABASE_URL at a running one',
    );
    expect(startHintOf(redisOf({ REDIS_URL: 'redis://127.0.0.1' }))).toBe('start it (`docker compose up -d redis`) or point REDIS_URL at a running one');
    expect(startHintOf(rabbitMqOf({ AMQP_URL: 'amqp://127.0.0.1' }))).toBe('start it (`docker compose up -d rabbitmq`) or point AMQP_URL at a running one');
  });
});
