export { canonicalJson } from './canonical-json';
export { INTAKE_MIGRATIONS_DIR, openIntakeDatabase, type IntakeDatabase } from './database';
export { intakeTable, requestWriterTables } from './intake-table';
export { sealedColumnsOf } from './sealed-columns';
export { byteaOfJson, openSealedFields, SealedFields, sealedFor, sqlClientOf } from './sealed-fields';
export { pgRunner, prismaRunner, type SqlRunner } from './sql-runner';
