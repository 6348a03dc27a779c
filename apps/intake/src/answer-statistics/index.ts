export { answerStatisticOf, type AnswerStatisticRow } from './answer-statistic';
export { AnswerStatisticsRepository, type ClinicDepartmentFigures } from './answer-statistics.repository';
export { AnswerStatisticsService } from './answer-statistics.service';
export { answerStatisticsRouter } from './answer-statistics.router';
