/** The arguments of `redis-server` for the local Redis on `port` (redis-server.cjs). */
export function redisServerArgs(port: number | string): string[];
