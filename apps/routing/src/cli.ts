import { CommandLine, UsageError, command, option, type CommandContext, type Session } from '@bedrequest/cli';
import type { BedCountView } from '@bedrequest/contracts';
import { describeDatabase } from '@bedrequest/persistence';
import { BedCapacityRepository } from './beds/bed-capacity.repository';
import { BedCountService } from './beds/bed-count.service';
import type { RoutingCliConfig } from './config';
import { DispatchRepository } from './dispatch/dispatch.repository';
import { openRoutingDatabase } from './persistence/database';
import { ClinicRegistry, parseCoordinates, parseDepartments, parseIk, parsePostalCode } from './registry/clinic-registry.service';
import { ClinicRepository } from './registry/clinic.repository';

interface RoutingServices {
  registry: ClinicRegistry;
  bedCounts: BedCountService;
  dispatches: DispatchRepository;
}

type Context = CommandContext<RoutingServices>;

/**
 * `npm run admin -- clinic ...` (docs/decisions.md, "Parties and credentials"; docs/parties.md, "Clinics
 * and routing"): registers participating clinics, switches their automatic answers, sets their bed
 * counts and shows what they were sent, in the routing schema of the running stack's database.
 */
export const CLINIC_CLI = new CommandLine<RoutingServices>({
  program: 'npm run admin --',
  group: 'clinic',
  summary: 'The clinic registry (routing). Reads DATABASE_URL and ROUTING_DB_SCHEMA from the environment.',
  commands: {
    upsert: command({
      summary: 'registers a participating clinic, or updates its name, departments and, where given, its postal code and coordinates',
      options: {
        ik: option.string('<IK>'),
        name: option.string('"<name>"'),
        departments: option.string('<key>[,<key>...]'),
        'postal-code': option.string('<5 digits>').optional(),
        latitude: option.string('<degrees>').optional(),
        longitude: option.string('<degrees>').optional(),
      },
      async run(values, { services, out }: Context) {
        const postalCode = values['postal-code'] === undefined ? undefined : parsePostalCode(values['postal-code']);
        const coordinates = parseCoordinates(values.latitude, values.longitude);
        const input = {
          ik: parseIk(values.ik),
          name: values.name,
          departments: parseDepartments(values.departments.split(',')),
          ...(postalCode ? { postalCode } : {}),
          ...(coordinates ? { coordinates } : {}),
        };
        const { registry } = await services();
        const { clinic, created } = await registry.register(input);
        const departments = clinic.departments.map((department) => `${department.code} (${department.specialty})`).join(', ');
        const location = [clinic.postalCode, clinic.coordinates && `${clinic.coordinates.latitude}, ${clinic.coordinates.longitude}`].filter(Boolean).join(' ');
        out(
          `clinic ${clinic.ik} "${clinic.name}" ${created ? 'registered' : 'updated'}; departments: ${departments}${location ? `; location: ${location}` : ''}`,
        );
      },
    }),
    list: command({
      summary: 'lists the participating clinics, their departments and whether they answer automatically',
      options: {},
      async run(_, { services, out }: Context) {
        const { registry } = await services();
        for (const clinic of await registry.list()) {
          const automatic = clinic.automaticAnswers ? '  automatic answers' : '';
          out(`${clinic.ik}  ${clinic.name}  [${clinic.departments.map((department) => department.code).join(', ')}]${automatic}`);
        }
      },
    }),
    'auto-answer': command({
      summary: "switches a clinic's automatic answers on or off",
      options: { ik: option.string('<IK>'), enabled: option.choice(['true', 'false']) },
      async run(values, { services, out }: Context) {
        const ik = parseIk(values.ik);
        const { registry } = await services();
        const clinic = await registry.setAutomaticAnswers(ik, values.enabled === 'true');
        out(`clinic ${clinic.ik}: automatic answers ${clinic.automaticAnswers ? 'enabled' : 'disabled'}`);
      },
    }),
    beds: command({
      summary: "with --department, --date and --free: sets a day's free beds; without: lists the clinic's bed counts by date",
      options: {
        ik: option.string('<IK>'),
        department: option.string('<key>').optional(),
        date: option.string('YYYY-MM-DD').optional(),
        free: option.string('<n>').optional(),
        from: option.string('YYYY-MM-DD').optional(),
        to: option.string('YYYY-MM-DD').optional(),
      },
      async run({ ik, department, date, free, from, to }, { services, out }: Context) {
        const clinicIk = parseIk(ik);
        if (department === undefined && date === undefined && free === undefined) {
          const { bedCounts } = await services();
          for (const count of await bedCounts.list(clinicIk, { from, to })) out(describeBedCount(count));
          return;
        }
        if (from !== undefined || to !== undefined) throw new UsageError('--from and --to list counts; they do not go with --department, --date or --free');
        const setting = { department: required(department, '--department'), date: required(date, '--date'), freeBeds: required(free, '--free') };
        const { bedCounts } = await services();
        out(`clinic ${clinicIk}: ${describeBedCount(await bedCounts.publish(clinicIk, setting))}`);
      },
    }),
    notifications: command({
      summary: 'shows the notifications a clinic was sent, newest first (20 unless --limit says otherwise)',
      options: { ik: option.string('<IK>'), limit: option.integer('<n>', { min: 1, max: 500 }).default(20) },
      async run(values, { services, out }: Context) {
        const ik = parseIk(values.ik);
        const { dispatches } = await services();
        for (const entry of await dispatches.notificationsOf(ik, values.limit)) {
          const answer = entry.answer ? ` answered ${entry.answer}` : '';
          out(
            `${entry.createdAt.toISOString()}  task ${entry.taskId}  v${entry.requestVersion} ${entry.change}/${entry.action}  ${entry.outcome}${answer}  ${entry.requestIdentifier}`,
          );
        }
      },
    }),
  },
});

/** --department, --date and --free go together: each is needed once one of them is given. */
function required(value: string | undefined, flag: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`missing option ${flag}`);
  return value;
}

function describeBedCount(count: BedCountView): string {
  return `${count.date} department ${count.department} (${count.specialty}): ${count.freeBeds} free, ${count.held} held, ${count.reserved} reserved, ${count.available} available`;
}

/** Routing's registry, bed counts and notification log on its schema (migrated first, so that the CLI works before the stack's first start). */
export async function openRoutingServices(config: RoutingCliConfig): Promise<Session<RoutingServices>> {
  const prisma = await openRoutingDatabase({ databaseUrl: config.DATABASE_URL, schema: config.ROUTING_DB_SCHEMA, poolSize: 2 }).catch((error: unknown) => {
    throw new Error(`cannot open the database at ${describeDatabase(config.DATABASE_URL)}: ${error instanceof Error ? error.message : String(error)}`);
  });
  const registry = new ClinicRegistry(new ClinicRepository(prisma));
  const services = {
    registry,
    bedCounts: new BedCountService(registry, new BedCapacityRepository(prisma, config.ROUTING_DB_SCHEMA)),
    dispatches: new DispatchRepository(prisma, config.ROUTING_DB_SCHEMA),
  };
  return { services, close: () => prisma.$disconnect() };
}
