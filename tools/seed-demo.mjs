// `npm run seed:demo`: registers the documented demo parties (docs/parties.md) through the admin
// command line: three clinics with their departments, a referrer and one user per clinic.
// Idempotent: clinics are upserted and users created or reset to the demo password (and enabled),
// so running it again restores the demo set. Needs the stack running (`npm start`): clinic users are
// checked against routing's clinic registry. Refuses to run with NODE_ENV=production.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

if (process.env.NODE_ENV === 'production') {
  console.error('error: the demo parties are for development and demonstrations; refusing with NODE_ENV=production');
  process.exit(1);
}

const admin = join(dirname(fileURLToPath(import.meta.url)), 'admin.mjs');

const clinics = [
  { ik: '510000001', name: 'Reha-Klinik Am Waldsee', departments: ['2300', '0300', '2800'], username: 'demo-waldsee' },
  { ik: '510000002', name: 'Fachklinik Bergblick', departments: ['3100', '8501', '0100'], username: 'demo-bergblick' },
  { ik: '510000003', name: 'Rehazentrum Seeufer', departments: ['2852', '2891', '0200', '2300'], username: 'demo-seeufer' },
];
const referrer = {
  username: 'demo-referrer',
  ik: '260000001',
  fhirBase: 'https://demo-hospital.example/fhir',
};
// Demo credentials, published in docs/parties.md: for local stacks only.
const passwordOf = (username) => `${username}-password`;

function run(args) {
  const result = spawnSync(process.execPath, [admin, ...args], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (result.status !== 0) {
    console.error(`error: seeding stopped at "npm run admin -- ${args.slice(0, 2).join(' ')}" (see above)`);
    process.exit(result.status ?? 1);
  }
}

for (const clinic of clinics) {
  run(['clinic', 'upsert', '--ik', clinic.ik, '--name', clinic.name, '--departments', clinic.departments.join(',')]);
}
run([
  'user', 'upsert', '--role', 'referrer', '--username', referrer.username, '--password', passwordOf(referrer.username),
  '--ik', referrer.ik, '--fhir-base', referrer.fhirBase,
]);
for (const clinic of clinics) {
  run(['user', 'upsert', '--role', 'clinic', '--username', clinic.username, '--password', passwordOf(clinic.username), '--ik', clinic.ik]);
}

const rows = [
  ['role', 'username', 'password', 'IK', 'details'],
  ['referrer', referrer.username, passwordOf(referrer.username), referrer.ik, `FHIR base ${referrer.fhirBase}`],
  ...clinics.map((clinic) => ['clinic', clinic.username, passwordOf(clinic.username), clinic.ik, `${clinic.name} (${clinic.departments.join(', ')})`]),
];
const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
console.log('Demo parties ready (log in with POST /api/v1/token/login):');
for (const row of rows) console.log(`  ${row.map((cell, column) => cell.padEnd(widths[column])).join('  ').trimEnd()}`);
