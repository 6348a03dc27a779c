// Drops the run's database (and the databases of its own that a test made and could not drop,
// named after it: libs/testing ownDatabase) and stops containers started by global-setup. Broker objects are
// deleted by the tests that declared them; Redis keys of the run are removed by prefix.
const { Client } = require('pg');

module.exports = async function globalTeardown() {
  const database = `bedrequest_test_${process.env.TEST_RUN_ID}`;
  const admin = new Client({ connectionString: process.env.TEST_POSTGRES_URL });
  await admin.connect();
  const { rows } = await admin.query(`SELECT datname FROM pg_database WHERE datname = $1 OR starts_with(datname, $1 || '_')`, [database]);
  for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  await admin.end();

  const { Redis } = require('ioredis');
  const redis = new Redis(process.env.REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${process.env.REDIS_KEY_PREFIX}*`, 'COUNT', 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  for (const container of globalThis.__testContainers ?? []) await container.stop();
};
