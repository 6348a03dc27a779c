export { ClearFields } from './clear-fields';
export { admissionCommand, automaticAnswerCommand, clinicAnswerCommand, documentCommand } from './commands';
export { testSealedFields } from './sealed-fields';
