// How the fault suite starts the machine's Redis, the same command line as .ci/run: no persistence,
// loopback only. Plain CommonJS, so that global-setup.cjs (which jest loads untransformed) and
// infrastructure.ts share it.
'use strict';

/** The arguments of `redis-server` for the local Redis on `port`. */
function redisServerArgs(port) {
  return [
    '--daemonize',
    'yes',
    '--bind',
    '127.0.0.1',
    '-::1',
    '--port',
    String(port),
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    '/var/lib/redis',
    '--logfile',
    '/var/log/redis/ci.log',
  ];
}

module.exports = { redisServerArgs };
