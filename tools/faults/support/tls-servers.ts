// PostgreSQL, Redis and RabbitMQ of a test's own that take TLS connections only, with certificates
// of a CA the test makes (openssl), beside the machine's servers (which stay as they are). Needs
// root, PostgreSQL's server binaries, redis-server linked with OpenSSL and RabbitMQ's commands, as
// the rest of the fault suite does.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort, RabbitMqNode, waitFor } from '@bedrequest/testing';

/** A certificate and its key, as files. */
export interface CertificateFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });

/** A CA of the test's own (a day's validity): `name` is its common name and the files' stem. */
export function makeCa(folder: string, name: string): CertificateFiles {
  const files = { certFile: join(folder, `${name}.crt`), keyFile: join(folder, `${name}.key`) };
  openssl(
    ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1'],
    ...['-keyout', files.keyFile, '-out', files.certFile, '-subj', `/CN=${name}`],
    ...['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
  );
  return files;
}

/** A server certificate for 127.0.0.1 and localhost, signed by `ca`. */
export function issueServerCertificate(folder: string, name: string, ca: CertificateFiles): CertificateFiles {
  const files = { certFile: join(folder, `${name}.crt`), keyFile: join(folder, `${name}.key`) };
  openssl(
    ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1'],
    ...['-CA', ca.certFile, '-CAkey', ca.keyFile, '-keyout', files.keyFile, '-out', files.certFile, '-subj', '/CN=localhost'],
    ...['-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-addext', 'basicConstraints=CA:FALSE', '-addext', 'extendedKeyUsage=serverAuth'],
  );
  return files;
}

/** Whether 127.0.0.1:`port` takes a TCP connection. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const idOf = (user: string, flag: '-u' | '-g') => Number(execFileSync('id', [flag, user], { encoding: 'utf8' }));

/** Copies `files` into `folder` for `user` (the key readable by it alone, as PostgreSQL demands). */
function handOver(files: CertificateFiles, folder: string, user: string): CertificateFiles {
  const copy = { certFile: join(folder, 'server.crt'), keyFile: join(folder, 'server.key') };
  copyFileSync(files.certFile, copy.certFile);
  copyFileSync(files.keyFile, copy.keyFile);
  chmodSync(copy.keyFile, 0o600);
  for (const file of [copy.certFile, copy.keyFile]) chownSync(file, idOf(user, '-u'), idOf(user, '-g'));
  return copy;
}

const postgresBin = (() => {
  const root = '/usr/lib/postgresql';
  const version = existsSync(root) ? readdirSync(root).sort().pop() : undefined;
  return version ? join(root, version, 'bin') : '/usr/lib/postgresql/bin';
})();

const asPostgres = (command: string, args: string[]) =>
  execFileSync('runuser', ['-u', 'postgres', '--', join(postgresBin, command), ...args], { encoding: 'utf8', stdio: 'pipe' });

/** A PostgreSQL cluster that takes TCP connections with TLS only (`hostssl`), its administrator `admin` with a password. */
export class TlsPostgres {
  private constructor(
    readonly port: number,
    private readonly dataDir: string,
  ) {}

  static readonly ADMIN_PASSWORD = 'tls-admin-secret';

  static async start(folder: string, server: CertificateFiles): Promise<TlsPostgres> {
    const own = join(folder, 'postgres');
    execFileSync('install', ['-d', '-m', '700', '-o', 'postgres', '-g', 'postgres', own]);
    const passwordFile = join(own, 'password');
    writeFileSync(passwordFile, TlsPostgres.ADMIN_PASSWORD);
    chownSync(passwordFile, idOf('postgres', '-u'), idOf('postgres', '-g'));
    const dataDir = join(own, 'data');
    asPostgres('initdb', ['--auth=scram-sha-256', '--username=admin', `--pwfile=${passwordFile}`, '-D', dataDir]);
    // TCP with TLS only: no `host` line, so a connection without TLS finds no entry and is refused.
    writeFileSync(join(dataDir, 'pg_hba.conf'), 'hostssl all all 127.0.0.1/32 scram-sha-256\n');
    const { certFile, keyFile } = handOver(server, own, 'postgres');
    const port = await freePort();
    asPostgres('pg_ctl', [
      ...['-D', dataDir, '-l', join(own, 'log'), '-w', '-o'],
      `-p ${port} -k ${own} -c listen_addresses=127.0.0.1 -c ssl=on -c ssl_cert_file=${certFile} -c ssl_key_file=${keyFile} -c max_connections=60`,
      'start',
    ]);
    return new TlsPostgres(port, dataDir);
  }

  /** The administrator's URL, verifying the server with `caFile` (libpq's sslmode and sslrootcert). */
  adminUrl(caFile: string): string {
    return `postgresql://admin:${TlsPostgres.ADMIN_PASSWORD}@127.0.0.1:${this.port}/bedrequest?sslmode=verify-full&sslrootcert=${encodeURIComponent(caFile)}`;
  }

  stop(): void {
    asPostgres('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', 'stop']);
  }
}

/** A Redis with a TLS port only (`--port 0`), clients not asked for certificates. */
export class TlsRedis {
  private constructor(
    readonly port: number,
    private readonly process: ChildProcess,
  ) {}

  static async start(folder: string, server: CertificateFiles, ca: CertificateFiles): Promise<TlsRedis> {
    const port = await freePort();
    const child = spawn(
      'redis-server',
      [
        ...['--port', '0', '--bind', '127.0.0.1', '--tls-port', String(port)],
        ...['--tls-cert-file', server.certFile, '--tls-key-file', server.keyFile, '--tls-ca-cert-file', ca.certFile, '--tls-auth-clients', 'no'],
        ...['--save', '', '--appendonly', 'no', '--dir', folder],
      ],
      { stdio: 'ignore' },
    );
    const redis = new TlsRedis(port, child);
    await waitFor(() => accepts(port), { timeoutMs: 10_000, intervalMs: 50, what: `Redis to listen on ${port}` });
    return redis;
  }

  /** The default user's URL (no password): provisioning's administrator. */
  get adminUrl(): string {
    return `rediss://127.0.0.1:${this.port}`;
  }

  stop(): void {
    this.process.kill('SIGKILL');
  }
}

/** A RabbitMQ node (libs/testing's RabbitMqNode) whose only listener is a TLS one. */
export class TlsRabbitMq {
  private constructor(
    readonly node: RabbitMqNode,
    readonly port: number,
  ) {}

  static async start(server: CertificateFiles, ca: CertificateFiles): Promise<TlsRabbitMq> {
    const port = await freePort();
    const node = await RabbitMqNode.create('tls', { config: ['listeners.tcp = none'] });
    const { certFile, keyFile } = handOver(server, node.folder, 'rabbitmq');
    const caFile = join(node.folder, 'ca.crt');
    copyFileSync(ca.certFile, caFile);
    chownSync(caFile, idOf('rabbitmq', '-u'), idOf('rabbitmq', '-g'));
    const config = join(node.folder, 'rabbitmq.conf');
    writeFileSync(
      config,
      readFileSync(config, 'utf8') +
        [
          `listeners.ssl.default = 127.0.0.1:${port}`,
          `ssl_options.cacertfile = ${caFile}`,
          `ssl_options.certfile = ${certFile}`,
          `ssl_options.keyfile = ${keyFile}`,
          'ssl_options.verify = verify_none',
          'ssl_options.fail_if_no_peer_cert = false',
        ].join('\n') +
        '\n',
    );
    await node.startOrRetry();
    return new TlsRabbitMq(node, port);
  }

  /** The administrator's URL (guest, on loopback). */
  get adminUrl(): string {
    return `amqps://guest:guest@127.0.0.1:${this.port}`;
  }

  /** Provisioning's rabbitmqctl for this node. */
  get rabbitmqctl(): string {
    return `rabbitmqctl -n ${this.node.node}`;
  }

  async stop(): Promise<void> {
    await this.node.remove();
  }
}
