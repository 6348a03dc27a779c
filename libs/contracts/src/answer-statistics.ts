import { z } from 'zod';

/** The answer statistics' window and thresholds (docs/api.md, "Answer statistics"). */
export const ANSWER_STATISTICS_WINDOW_DAYS = 90;
/** Below this many answers a median says more about chance than about the clinic: only the count is given. */
export const ANSWER_STATISTICS_MINIMUM_ANSWERS = 5;
/** Peers' figures need this many peers with enough answers: with one or two, they would be those clinics' own. */
export const ANSWER_STATISTICS_MINIMUM_PEERS = 3;

/**
 * A clinic's figures in one department: how many first answers, and with at least
 * ANSWER_STATISTICS_MINIMUM_ANSWERS of them the median and 90th percentile of the seconds from the
 * Task's sending to the answer (percentile_cont: interpolated) and the share of acceptances (0…1).
 */
export const AnswerFigures = z.object({
  answers: z.number().int().nonnegative(),
  medianSeconds: z.number().int().nonnegative().optional(),
  p90Seconds: z.number().int().nonnegative().optional(),
  acceptanceShare: z.number().min(0).max(1).optional(),
});
export type AnswerFigures = z.infer<typeof AnswerFigures>;

const Window = {
  windowDays: z.number().int().positive(),
  since: z.string(),
  minimumAnswers: z.number().int().positive(),
};

/** `GET /api/v1/kliniken/answer-statistics`: every clinic's figures, for a referrer choosing clinics. */
export const ClinicAnswerStatistics = AnswerFigures.extend({ clinicIk: z.string(), departmentCode: z.string() });
export type ClinicAnswerStatistics = z.infer<typeof ClinicAnswerStatistics>;
export const AnswerStatisticsList = z.object({ ...Window, items: z.array(ClinicAnswerStatistics) });
export type AnswerStatisticsList = z.infer<typeof AnswerStatisticsList>;

/**
 * The median of the peers' figures (the other clinics of the department with enough answers), each
 * peer counting once; none below ANSWER_STATISTICS_MINIMUM_PEERS peers.
 */
export const PeerFigures = z.object({
  clinics: z.number().int().nonnegative(),
  medianSeconds: z.number().int().nonnegative().optional(),
  p90Seconds: z.number().int().nonnegative().optional(),
  acceptanceShare: z.number().min(0).max(1).optional(),
});
export type PeerFigures = z.infer<typeof PeerFigures>;

/** `GET /api/v1/clinic/answer-statistics`: the clinic's own figures per department beside its peers'. */
export const OwnAnswerStatistics = z.object({
  ...Window,
  minimumPeers: z.number().int().positive(),
  items: z.array(z.object({ clinicIk: z.string(), departmentCode: z.string(), own: AnswerFigures, peers: PeerFigures })),
});
export type OwnAnswerStatistics = z.infer<typeof OwnAnswerStatistics>;
