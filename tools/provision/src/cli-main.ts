import { provisionPlan } from './plan';
import { provision, provisionTargetOf } from './provision';

// `npm run admin -- provision` (tools/admin.mjs bundles and runs this file): sets up, with
// administrator credentials, every service's database roles, broker user and Redis user, the
// broker's topology and the schemas' migrations (docs/operations.md, "Provisioning"). Idempotent;
// prints one line per change, never a password.
const USAGE = `usage: npm run admin -- provision
Creates or updates, for the namespace AMQP_NAMESPACE (default bedrequest): per service a PostgreSQL
owner role (owns the schema, runs the migrations) and runtime role, a RabbitMQ user with permissions on
its own queue and routing keys, a Redis ACL user for its key prefix; the broker's exchanges and queues;
the schemas' migrations. Administrator connections: PROVISION_DATABASE_URL, PROVISION_AMQP_URL,
PROVISION_REDIS_URL (else DATABASE_URL, AMQP_URL, REDIS_URL, else the local defaults), and the broker's
management API (PROVISION_RABBITMQ_API_URL) or, without it, the broker machine's rabbitmqctl (RABBITMQCTL). The services' passwords: <SERVICE>_DATABASE_PASSWORD,
<SERVICE>_AMQP_PASSWORD and <SERVICE>_REDIS_PASSWORD, the same the services are given; KEDA_DATABASE_PASSWORD, KEDA's
role that reads the notifier's backlog. Also read:
AUTH_DB_SCHEMA, INTAKE_DB_SCHEMA, ROUTING_DB_SCHEMA, NOTIFIER_DB_SCHEMA, REDIS_KEY_PREFIX, AMQP_DELIVERY_LIMIT.`;

async function main(argv: readonly string[]): Promise<number> {
  if (argv.some((arg) => ['--help', '-h', 'help'].includes(arg))) {
    console.log(USAGE);
    return 0;
  }
  if (argv.length > 0) {
    console.error(`error: provision takes no arguments (got "${argv.join(' ')}"); see npm run admin -- provision --help`);
    return 2;
  }
  try {
    const plan = provisionPlan(process.env, { generatePasswords: false });
    const changes = await provision(plan, provisionTargetOf(process.env, `${process.cwd()}/apps`));
    for (const line of changes) console.log(line);
    console.log(`provisioned namespace ${plan.namespace}: ${changes.length} changes`);
    return 0;
  } catch (error) {
    for (const line of (error instanceof Error ? error.message : String(error)).split('\n')) console.error(`error: ${line}`);
    return 1;
  }
}

void main(process.argv.slice(3)).then((code) => {
  process.exitCode = code;
});
