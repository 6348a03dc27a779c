// `npm run seed:demo`: registers the documented demo parties (docs/parties.md) through the admin
// command line: three clinics with their departments, a referrer and one user per clinic, and a second
// person in the referrer's party and in Reha-Klinik Am Waldsee's (docs/parties.md). Then the
// demo referrer sends three admission requests through the API, so that the clinic inbox
// (docs/inbox.md) has something to show: two to Reha-Klinik Am Waldsee alone, one also to Fachklinik
// Bergblick (which the service declines at once: it has no orthopaedics).
// Idempotent: clinics are upserted and users created or reset to the demo password (and enabled);
// the requests are the same bundles each time, which the service takes as retries of a transmission.
// Needs the stack running (`npm start`): clinic users are checked against routing's clinic registry.
// Refuses to run with NODE_ENV=production.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The demo is for local stacks: unset (or blank) NODE_ENV means development here, not production as for the services.
if (!process.env.NODE_ENV?.trim()) process.env.NODE_ENV = 'development';
if (process.env.NODE_ENV === 'production') {
  console.error('error: the demo parties are for development and demonstrations; refusing with NODE_ENV=production');
  process.exit(1);
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const admin = join(root, 'tools', 'admin.mjs');
// The gateway and the web app of `npm start` (their PORT and WEB_PORT, on the loopback address).
const gatewayUrl = process.env.GATEWAY_URL ?? `http://127.0.0.1:${process.env.PORT ?? '8080'}`;
const webUrl = process.env.WEB_PUBLIC_URL ?? `http://127.0.0.1:${process.env.WEB_PORT ?? '8085'}`;

const clinics = [
  {
    ik: '510000001',
    name: 'Reha-Klinik Am Waldsee',
    departments: ['2300', '0300', '2800'],
    username: 'demo-waldsee',
    colleague: { username: 'demo-waldsee-2', displayName: 'Jana Demo (Aufnahme Waldsee)' },
  },
  { ik: '510000002', name: 'Fachklinik Bergblick', departments: ['3100', '8501', '0100'], username: 'demo-bergblick' },
  { ik: '510000003', name: 'Rehazentrum Seeufer', departments: ['2852', '2891', '0200', '2300'], username: 'demo-seeufer' },
];
const referrer = {
  username: 'demo-referrer',
  ik: '260000001',
  fhirBase: 'https://demo-hospital.example/fhir',
  colleague: { username: 'demo-referrer-2', displayName: 'Max Demo (Sozialdienst)' },
};
// Demo credentials, published in docs/parties.md: for local stacks only.
const passwordOf = (username) => `${username}-password`;

/** Runs an admin command; returns what it printed. */
function run(args) {
  const result = spawnSync(process.execPath, [admin, ...args], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (result.status !== 0) {
    console.error(`error: seeding stopped at "npm run admin -- ${args.slice(0, 2).join(' ')}" (see above)`);
    process.exit(result.status ?? 1);
  }
  return result.stdout;
}

/** The party id of each user, from `user list` ("... user <name> (id ...) ..., party <id>, display name ..."). */
function partiesOfUsers() {
  const parties = new Map();
  for (const line of run(['user', 'list']).split('\n')) {
    const match = / user (\S+) \(id [^)]+\).*, party (\S+), display name /.exec(line);
    if (match) parties.set(match[1], match[2]);
  }
  return parties;
}

/**
 * The second person of the party of `first`: created with `user create --party`, or, on a later run,
 * reset to the demo password and enabled by `user upsert` with the party's own role and IK numbers.
 */
function colleagueOf(first, colleague, partyArgs, parties) {
  const party = parties.get(first);
  if (parties.get(colleague.username) === party) {
    run(['user', 'upsert', '--username', colleague.username, '--password', passwordOf(colleague.username), ...partyArgs]);
  } else {
    run([
      'user',
      'create',
      '--party',
      party,
      '--username',
      colleague.username,
      '--password',
      passwordOf(colleague.username),
      '--display-name',
      colleague.displayName,
    ]);
  }
}

for (const clinic of clinics) {
  run(['clinic', 'upsert', '--ik', clinic.ik, '--name', clinic.name, '--departments', clinic.departments.join(',')]);
}
run([
  'user',
  'upsert',
  '--role',
  'referrer',
  '--username',
  referrer.username,
  '--password',
  passwordOf(referrer.username),
  '--ik',
  referrer.ik,
  '--fhir-base',
  referrer.fhirBase,
]);
for (const clinic of clinics) {
  run(['user', 'upsert', '--role', 'clinic', '--username', clinic.username, '--password', passwordOf(clinic.username), '--ik', clinic.ik]);
}
const parties = partiesOfUsers();
const referrerArgs = ['--role', 'referrer', '--ik', referrer.ik, '--fhir-base', referrer.fhirBase];
colleagueOf(referrer.username, referrer.colleague, referrerArgs, parties);
// Whom the clinics call about the demo hospital's requests (docs/parties.md, "Contact").
run(['party', 'update', '--id', parties.get(referrer.username), '--contact-name', 'Sozialdienst, Max Demo', '--contact-phone', '+49 30 1234-5678']);
for (const clinic of clinics.filter((each) => each.colleague)) colleagueOf(clinic.username, clinic.colleague, ['--role', 'clinic', '--ik', clinic.ik], parties);

const rows = [
  ['role', 'username', 'password', 'IK', 'details'],
  ['referrer', referrer.username, passwordOf(referrer.username), referrer.ik, `FHIR base ${referrer.fhirBase}`],
  colleagueRow('referrer', referrer.colleague, referrer),
  ...clinics.flatMap((clinic) => [
    ['clinic', clinic.username, passwordOf(clinic.username), clinic.ik, `${clinic.name} (${clinic.departments.join(', ')})`],
    ...(clinic.colleague ? [colleagueRow('clinic', clinic.colleague, clinic)] : []),
  ]),
];
const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
console.log('Demo parties ready (log in with POST /api/v1/token/login):');
for (const row of rows)
  console.log(
    `  ${row
      .map((cell, column) => cell.padEnd(widths[column]))
      .join('  ')
      .trimEnd()}`,
  );

const sent = await sendDemoRequests();
const waldsee = clinics[0];
console.log('');
console.log(
  `Clinic inbox: ${webUrl}/inbox/  (log in as ${waldsee.username} / ${passwordOf(waldsee.username)}${sent ? `; ${sent} demo requests waiting` : ''})`,
);

/** The table row of a second person: same party as the first user, with their display name. */
function colleagueRow(role, colleague, first) {
  return [role, colleague.username, passwordOf(colleague.username), first.ik, `${colleague.displayName}, same party as ${first.username}`];
}

/**
 * Three requests of the demo referrer, made from docs/examples/admission-request.json: another
 * request identifier, patient, main diagnosis, specialty and date each, Reha-Klinik Am Waldsee as
 * the requested clinic (the first also asks Fachklinik Bergblick). Returns how many were accepted.
 */
async function sendDemoRequests() {
  const example = JSON.parse(readFileSync(join(root, 'docs', 'examples', 'admission-request.json'), 'utf8'));
  const variants = [
    {
      id: '3f6b8a52-9c1d-4e7a-8b2f-1a0c9d8e7f01',
      performers: ['510000001', '510000002'],
      gender: 'female',
      birthDate: '1956-01-01',
      diagnosis: ['S72.01', 'Schenkelhalsfraktur: Intrakapsulär'],
      date: '2026-12-01',
      notes: ['Einzelzimmer erwünscht'],
    },
    {
      id: '3f6b8a52-9c1d-4e7a-8b2f-1a0c9d8e7f02',
      performers: ['510000001'],
      gender: 'male',
      birthDate: '1961-09-12',
      diagnosis: ['M17.1', 'Sonstige primäre Gonarthrose'],
      date: '2026-12-08',
      notes: ['Mobil an Unterarmgehstützen'],
    },
    {
      id: '3f6b8a52-9c1d-4e7a-8b2f-1a0c9d8e7f03',
      performers: ['510000001'],
      gender: 'male',
      birthDate: '1958-02-20',
      diagnosis: ['I21.0', 'Akuter transmuraler Myokardinfarkt der Vorderwand'],
      date: '2026-12-03',
      notes: [],
      specialty: ['cardiology', '0300'],
    },
  ];
  let token;
  try {
    const login = await fetch(`${gatewayUrl}/api/v1/token/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: referrer.username, password: passwordOf(referrer.username) }),
    });
    if (login.status !== 200) throw new Error(`login answered ${login.status}`);
    token = (await login.json()).accessToken;
  } catch (error) {
    console.error(
      `note: no demo requests sent: the gateway at ${gatewayUrl} did not log the demo referrer in (${error.message}); set GATEWAY_URL if it runs elsewhere`,
    );
    return 0;
  }
  let accepted = 0;
  for (const [index, variant] of variants.entries()) {
    const bundle = demoBundle(example, variant, index + 1);
    const answer = await fetch(`${gatewayUrl}/api/v2/fhir/Bundle`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/fhir+json' },
      body: JSON.stringify(bundle),
    });
    if (answer.status === 202) accepted += 1;
    else console.error(`note: demo request ${index + 1} answered ${answer.status} (it may have been withdrawn or selected meanwhile)`);
  }
  return accepted;
}

function demoBundle(example, variant, number) {
  const bundle = structuredClone(example);
  bundle.identifier.value = `T-demo-${number}`;
  const resources = bundle.entry.map((entry) => entry.resource);
  const serviceRequest = resources.find((resource) => resource.resourceType === 'ServiceRequest');
  serviceRequest.identifier[0].value = `${referrer.fhirBase}/ServiceRequest/${variant.id}`;
  serviceRequest.occurrenceDateTime = variant.date;
  if (variant.notes.length) serviceRequest.note = variant.notes.map((text) => ({ text }));
  else delete serviceRequest.note;
  if (variant.specialty) {
    const [specialty, department] = variant.specialty;
    for (const coding of serviceRequest.performerType.coding) {
      if (coding.system.endsWith('/CodeSystem/specialty')) Object.assign(coding, { code: specialty, display: specialty });
      else Object.assign(coding, { code: department, display: `Fachabteilung ${department}` });
    }
  }
  // Only the requested clinics' Organizations stay, and the performer references to them.
  const ikOf = (resource) => resource.identifier?.find((identifier) => identifier.system === 'http://fhir.de/sid/arge-ik/iknr')?.value;
  const performers = bundle.entry.filter((entry) => entry.resource.resourceType === 'Organization' && variant.performers.includes(ikOf(entry.resource)));
  serviceRequest.performer = performers.map((entry) => ({ reference: entry.fullUrl }));
  bundle.entry = bundle.entry.filter(
    (entry) => entry.resource.resourceType !== 'Organization' || ikOf(entry.resource) === referrer.ik || performers.includes(entry),
  );
  const patient = resources.find((resource) => resource.resourceType === 'Patient');
  Object.assign(patient, { gender: variant.gender, birthDate: variant.birthDate });
  const condition = resources.find((resource) => resource.resourceType === 'Condition');
  Object.assign(condition.code.coding[0], { code: variant.diagnosis[0], display: variant.diagnosis[1] });
  return bundle;
}
