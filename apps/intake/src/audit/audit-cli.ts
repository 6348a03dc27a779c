import { CommandLine, UsageError, command, option, type CommandContext, type CommandLineIo } from '@bedrequest/cli';
import type { AnchorRecord } from './anchor-chain';
import { anchorExportLines, readAnchorExport, writeAnchorExport } from './anchor-export';
import type { AuditTrail } from './audit-trail.service';

/** What the audit commands work with (src/cli.ts opens them). */
export interface AuditCliServices {
  audit: AuditTrail;
  /** The anchors of the audit trail from a day on (all without one), oldest first. */
  anchors(since?: string): Promise<AnchorRecord[]>;
}

type Context = CommandContext<AuditCliServices>;

const ENVIRONMENT = 'Reads DATABASE_URL, INTAKE_DB_SCHEMA, DATA_KEK, DATA_KEK_ID and DATA_PREVIOUS_KEKS from the environment.';
const DAY = option.string('YYYY-MM-DD');

/**
 * `npm run admin -- audit verify [--date YYYY-MM-DD] [--anchors <file>]`: recomputes the audit
 * trail's hash chains (audit-chain.ts), checks every day against its anchor and the anchors'
 * chain (audit-anchors.ts), with --anchors against an export of them, and names the first broken
 * day or entry, exiting 1.
 */
const AUDIT_VERIFY_CLI = new CommandLine<AuditCliServices>({
  program: 'npm run admin --',
  group: 'audit',
  summary: `The audit trail of reads and changes (intake). ${ENVIRONMENT}`,
  commands: {
    verify: command({
      summary:
        'recomputes the hash chain of every day (or of --date, a UTC day), checks each day against its anchor and the anchors against each other (with --anchors, against an export of them too), and names the first broken day or entry; exits 1 if there is one',
      options: { date: DAY.optional(), anchors: option.string('<file>').optional() },
      async run({ date, anchors }, { services, out }: Context) {
        if (date !== undefined && !isDay(date)) throw new UsageError(`--date must be a day written YYYY-MM-DD, got "${date}"`);
        const exported = anchors === undefined ? undefined : await readAnchorExport(anchors);
        const { audit } = await services();
        const report = await audit.verify({ day: date, exported });
        const checked = `${count(report.entries, 'entry', 'entries')} of ${count(report.days.length, 'day')} checked`;
        if (report.broken) {
          const { broken } = report;
          const where = 'seq' in broken ? ` at entry ${broken.seq} (AuditEvent ${broken.id})` : '';
          throw new Error(`the audit trail of ${broken.day} is broken${where}: ${broken.reason}; ${checked}`);
        }
        const matched = exported ? `; the database holds the ${count(exported.anchors.size, 'anchor')} of ${exported.file}` : '';
        out(date !== undefined && report.days.length === 0 ? `no audit entries on ${date}${matched}` : `the audit trail is intact: ${checked}${matched}`);
      },
    }),
  },
});

/**
 * `npm run admin -- audit anchors export [--since YYYY-MM-DD] --out <file>`: writes the anchors as
 * JSON Lines (anchor-export.ts) to a new file, for storage the database's writers cannot rewrite
 * (docs/data-protection.md, "Anchors").
 */
const AUDIT_ANCHORS_CLI = new CommandLine<AuditCliServices>({
  program: 'npm run admin --',
  group: 'audit anchors',
  summary: `The anchors of the audit trail's days (intake). ${ENVIRONMENT}`,
  commands: {
    export: command({
      summary:
        'writes every anchor (or those from --since on) to a new file (--out=- for standard output), one JSON object a line, to keep outside the database (object storage with retention); audit verify --anchors checks the database against it',
      options: { since: DAY.optional(), out: option.string('<file>|-') },
      async run({ since, out: file }, { services, out, err }: Context) {
        if (since !== undefined && !isDay(since)) throw new UsageError(`--since must be a day written YYYY-MM-DD, got "${since}"`);
        const { anchors } = await services();
        const exported = await anchors(since);
        // `--out=-`: the lines on standard output (through `kubectl exec`), what was written on standard error.
        if (file === '-') for (const line of anchorExportLines(exported)) out(line);
        else await writeAnchorExport(file, exported);
        const [first, last, where] = [exported.at(0), exported.at(-1), file === '-' ? 'standard output' : file];
        (file === '-' ? err : out)(
          first && last
            ? `${count(exported.length, 'anchor')} (${first.day} to ${last.day}) written to ${where}`
            : `no anchors${since === undefined ? '' : ` since ${since}`}; an empty ${where} written`,
        );
      },
    }),
  },
});

const HELP = new Set(['--help', '-h', 'help']);

/**
 * `audit verify` and `audit anchors export`: @bedrequest/cli reads one word per command, so a
 * second word `anchors` hands the rest to the anchors' command line, whose usage text follows
 * verify's.
 */
export const AUDIT_CLI = {
  async run(argv: readonly string[], io: CommandLineIo<AuditCliServices>): Promise<number> {
    if (argv[1] === 'anchors') return AUDIT_ANCHORS_CLI.run(['audit anchors', ...argv.slice(2)], io);
    const code = await AUDIT_VERIFY_CLI.run(argv, io);
    const helped = code === 0 && argv.length <= 2 && HELP.has(argv.at(-1) ?? '');
    return helped ? AUDIT_ANCHORS_CLI.run(['audit anchors', '--help'], io) : code;
  },
};

/** A calendar day as YYYY-MM-DD (2026-02-30 is none). */
export function isDay(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const midnight = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(midnight.getTime()) && midnight.toISOString().slice(0, 10) === text;
}

function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
