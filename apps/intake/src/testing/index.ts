export { ClearFields } from './clear-fields';
export { admissionCommand, clinicAnswerCommand, documentCommand } from './commands';
export { testSealedFields } from './sealed-fields';
