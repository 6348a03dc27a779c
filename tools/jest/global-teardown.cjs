// Drops the run's database (and the databases of its own that a test made and could not drop,
// named after it: libs/testing ownDatabase) and stops containers started by global-setup. Broker objects are
// deleted by the tests that declared them; Redis keys of the run are removed by prefix.
const { spawnSync } = require('node:child_process');
const { rmSync } = require('node:fs');
const { join } = require('node:path');
const { Client } = require('pg');

module.exports = async function globalTeardown() {
  // The mark of this run's build (tools/stack buildServices).
  rmSync(join(__dirname, '..', '..', 'dist', `.built-${process.env.TEST_RUN_ID}`), { force: true });
  const database = `bedrequest_test_${process.env.TEST_RUN_ID}`;
  const admin = new Client({ connectionString: process.env.TEST_POSTGRES_URL });
  await admin.connect();
  const { rows } = await admin.query(`SELECT datname FROM pg_database WHERE datname = $1 OR starts_with(datname, $1 || '_')`, [database]);
  for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  // Roles a stack provisioned and could not remove (it was killed): named after the run's namespace.
  const namespace = process.env.AMQP_NAMESPACE;
  const { rows: roles } = await admin.query(`SELECT rolname FROM pg_roles WHERE starts_with(rolname, $1)`, [`${namespace}_`]);
  for (const { rolname } of roles) await admin.query(`DROP ROLE IF EXISTS "${rolname}"`).catch(() => undefined);
  await admin.end();
  // Likewise the broker's users, in one call.
  const deleteUsers = `P = <<"${namespace}_">>, [rabbit_auth_backend_internal:delete_user(U, <<"teardown">>) || X <- rabbit_auth_backend_internal:list_users(), U <- [proplists:get_value(user, X)], binary:longest_common_prefix([U, P]) =:= byte_size(P)], ok.`;
  spawnSync('rabbitmqctl', ['-q', 'eval', deleteUsers], { timeout: 60_000 });

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
    const aclUsers = await redis.call('ACL', 'USERS');
    const leftovers = aclUsers.filter((user) => user.startsWith(`${namespace}_`));
    if (leftovers.length) await redis.call('ACL', 'DELUSER', ...leftovers);
  } finally {
    redis.disconnect();
  }
  for (const container of globalThis.__testContainers ?? []) await container.stop();
};
