export { intakeHandler } from './intake.consumer';
