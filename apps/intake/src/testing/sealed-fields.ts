import { type IntakeDatabase, openSealedFields, type SealedFields } from '../persistence';

/** Intake's sealed fields in a test schema, under that schema's development KEK (as outside production). */
export async function testSealedFields(prisma: IntakeDatabase, schema: string): Promise<SealedFields> {
  return (await openSealedFields({ NODE_ENV: 'test', INTAKE_DB_SCHEMA: schema }, prisma)).fields;
}
