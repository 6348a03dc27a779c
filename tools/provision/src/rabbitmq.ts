import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { env as configEnv } from '@bedrequest/config';
import { declareTopology, type Topology } from '@bedrequest/contracts';
import { declareBrokerTopology } from '@bedrequest/messaging';
import type { BrokerPrincipal } from './plan';

/**
 * The broker's side (docs/operations.md, "Provisioning"): the topology, declared with the
 * administrator's connection (exchanges, quorum queues with their dead-letter queues, bindings: no
 * service declares any of it), and per service a user whose permissions cover only what it uses and
 * whose topic permission on the events exchange lets it publish only its own routing keys and bind
 * only those it consumes. Users and permissions go in as one
 * definitions document through `rabbitmqctl import_definitions` on the broker's machine (RABBITMQCTL
 * names the command; on Kubernetes the RabbitMQ messaging topology operator's User and Permission
 * resources do the same). Idempotent: importing again sets the passwords and permissions anew.
 */
export async function provisionBroker(
  admin: BrokerAdmin,
  options: { namespace: string; deliveryLimit: number; principals: readonly BrokerPrincipal[] },
): Promise<string[]> {
  const topology = await provisionBrokerTopology(admin.amqpUrl, options);
  const vhost = vhostOf(configEnv.urlsOf(admin.amqpUrl)[0] ?? admin.amqpUrl);
  const definitions = {
    users: options.principals.map(({ user, password }) => ({ name: user, ...passwordHash(password), tags: [] })),
    permissions: options.principals.map(({ user, configure, write, read }) => ({ user, vhost, configure, write, read })),
    topic_permissions: options.principals.map(({ user, publish, consume }) => ({
      user,
      vhost,
      exchange: topology.eventsExchange,
      write: publish,
      read: consume,
    })),
  };
  if (admin.api) await managementApi(admin.api, 'POST', '/api/definitions', definitions);
  // On standard input: rabbitmqctl reads files as the rabbitmq user, which may not see ours.
  else await rabbitmqctl(admin.rabbitmqctl, ['import_definitions', '--format', 'json'], JSON.stringify(definitions));
  return [
    `RabbitMQ: topology of ${options.namespace} declared (${topology.eventsExchange}, ${Object.values(topology.queues)
      .map((queue) => queue.name)
      .join(', ')})`,
    ...options.principals.map((principal) => `RabbitMQ: user ${principal.user} set (publishes ${principal.publish}, binds ${principal.consume})`),
  ];
}

/**
 * Provisioning's topology step alone: the namespace's exchanges, queues and bindings, declared with
 * the administrator's `amqpUrl`. Also for a local stack or test whose services connect as that
 * administrator and make no users (no service declares the topology: docs/operations.md, "Provisioning").
 */
export async function provisionBrokerTopology(amqpUrl: string, options: { namespace: string; deliveryLimit: number }): Promise<Topology> {
  const topology = declareTopology(options.namespace);
  await declareBrokerTopology(amqpUrl, topology, options.deliveryLimit);
  return topology;
}

/**
 * How provisioning reaches the broker's users: its management HTTP API where `api` is given (the
 * plugin's port need not be published beyond the provisioning job's network), else the broker
 * machine's `rabbitmqctl`.
 */
export interface BrokerAdmin {
  /** An administrator's URL; for a cluster one per node, comma-separated (the first that answers is used). */
  amqpUrl: string;
  /** The command with its arguments, e.g. `rabbitmqctl -n rabbit@mq-0` for one node of a cluster (users are the cluster's). */
  rabbitmqctl: string;
  /** `http(s)://administrator:password@host:15672`. */
  api?: string | undefined;
}

/** Deletes the users of `principals` in one call (an isolated stack's, when it stops). */
export async function removeBrokerPrincipals(admin: Omit<BrokerAdmin, 'amqpUrl'>, principals: readonly BrokerPrincipal[]): Promise<void> {
  if (principals.length === 0) return;
  if (admin.api) {
    await managementApi(admin.api, 'POST', '/api/users/bulk-delete', { users: principals.map((principal) => principal.user) });
    return;
  }
  const rabbitmqctlCommand = admin.rabbitmqctl;
  const users = principals.map((principal) => `<<"${principal.user.replace(/[^A-Za-z0-9_.-]/g, '')}">>`).join(', ');
  // One Erlang expression instead of a `delete_user` call (a second each) per user.
  const deleteIfThere = `case rabbit_auth_backend_internal:lookup_user(U) of {ok, _} -> rabbit_auth_backend_internal:delete_user(U, <<"provision">>); _ -> ok end`;
  await rabbitmqctl(rabbitmqctlCommand, ['eval', `[${deleteIfThere} || U <- [${users}]], ok.`]);
}

/** One call of the management HTTP API, with the credentials of `api`; throws with its status and answer. */
async function managementApi(api: string, method: string, path: string, body: unknown): Promise<void> {
  const base = new URL(api);
  const authorization = `Basic ${Buffer.from(`${decodeURIComponent(base.username)}:${decodeURIComponent(base.password)}`).toString('base64')}`;
  base.username = '';
  base.password = '';
  const response = await fetch(new URL(path, base), { method, headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`RabbitMQ management API ${method} ${path} answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
}

function rabbitmqctl(command: string, args: string[], input?: string): Promise<void> {
  const [file = 'rabbitmqctl', ...options] = command.trim().split(/\s+/);
  return new Promise((resolve, reject) => {
    const child = execFile(file, [...options, '-q', ...args], { timeout: 60_000 }, (error, _stdout, stderr) => {
      if (!error) resolve();
      else reject(new Error(`${command} ${args[0]} failed: ${(stderr || error.message).trim().split('\n')[0]}`));
    });
    child.stdin?.end(input ?? '');
  });
}

/** RabbitMQ's own password hash (rabbit_password_hashing_sha256): base64 of salt ‖ SHA-256(salt ‖ password). */
function passwordHash(password: string): { password_hash: string; hashing_algorithm: string } {
  const salt = randomBytes(4);
  const digest = createHash('sha256')
    .update(Buffer.concat([salt, Buffer.from(password, 'utf8')]))
    .digest();
  return { password_hash: Buffer.concat([salt, digest]).toString('base64'), hashing_algorithm: 'rabbit_password_hashing_sha256' };
}

function vhostOf(amqpUrl: string): string {
  const path = new URL(amqpUrl).pathname;
  return path.length > 1 ? decodeURIComponent(path.slice(1)) : '/';
}
