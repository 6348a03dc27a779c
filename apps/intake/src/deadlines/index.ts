export { OverdueSweep } from './overdue-sweep';
export { ReferrerSettingsRepository } from './referrer-settings.repository';
export { referrerSettingsRouter } from './referrer-settings.router';
export { answerDeadlineExpression, decideAnswerDeadline, SERVICE_DEADLINE_RULE } from './request-deadline';
export { defaultAnswerDeadline, type AnswerDeadlineRule } from './working-days';
export { EscalationSweep, type EscalationSources } from './escalation-sweep';
export { clinicsToAsk, greatCircleKm, stillOpen } from './escalation';
