import { openPlainSqlSession } from './plain-sql';

describe('openPlainSqlSession', () => {
  // The test run's database (libs/testing cannot be used here: it depends on this library).
  const databaseUrl = process.env.DATABASE_URL ?? '';

  it('gives the service client and a plain pool, and closes both together', async () => {
    let disconnected = 0;
    const session = await openPlainSqlSession(
      databaseUrl,
      async () => ({ $disconnect: async () => void (disconnected += 1) }),
      async (_db, sql) => sql,
    );
    expect(await session.services.query<{ one: number }>('SELECT 1 AS one', [])).toEqual([{ one: 1 }]);

    await session.close();
    expect(disconnected).toBe(1);
    await expect(session.services.query('SELECT 1', [])).rejects.toThrow();
  });

  it('names the database, never its credentials, when the service client does not open', async () => {
    const url = 'postgres://someone:secret-password@127.0.0.1:1/nowhere';
    const failing = openPlainSqlSession(
      url,
      () => Promise.reject(new Error('connect ECONNREFUSED')),
      async () => 'never',
    );

    await expect(failing).rejects.toThrow('cannot open the database at 127.0.0.1:1/nowhere: connect ECONNREFUSED');
    await expect(failing).rejects.not.toThrow(/secret-password/);
  });

  it('closes what it opened when building the services fails', async () => {
    let disconnected = 0;
    const failing = openPlainSqlSession(
      databaseUrl,
      async () => ({ $disconnect: async () => void (disconnected += 1) }),
      () => Promise.reject(new Error('no key')),
    );

    await expect(failing).rejects.toThrow('no key');
    expect(disconnected).toBe(1);
  });
});
