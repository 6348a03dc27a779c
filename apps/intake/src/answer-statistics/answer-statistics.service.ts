import {
  ANSWER_STATISTICS_MINIMUM_ANSWERS,
  ANSWER_STATISTICS_MINIMUM_PEERS,
  ANSWER_STATISTICS_WINDOW_DAYS,
  type AnswerFigures,
  type AnswerStatisticsList,
  type OwnAnswerStatistics,
  type PeerFigures,
} from '@bedrequest/contracts';
import type { AnswerStatisticsRepository, ClinicDepartmentFigures } from './answer-statistics.repository';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The answer statistics as each caller may see them (docs/api.md, "Answer statistics"): a referrer
 * every clinic's figures, a clinic its own beside the median of its peers, never another clinic's.
 */
export class AnswerStatisticsService {
  constructor(
    private readonly repository: AnswerStatisticsRepository,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async forReferrer(departmentCode?: string): Promise<AnswerStatisticsList> {
    const since = this.since();
    const figures = await this.repository.figures(since, departmentCode);
    return { ...windowOf(since), items: figures.map((row) => ({ clinicIk: row.clinicIk, departmentCode: row.departmentCode, ...figuresOf(row) })) };
  }

  /** The clinic's IKs' figures per department; its peers are every other IK with answers there. */
  async forClinic(ikNumbers: readonly string[]): Promise<OwnAnswerStatistics> {
    const since = this.since();
    const all = await this.repository.figures(since);
    const own = all.filter((row) => ikNumbers.includes(row.clinicIk));
    const items = own.map((row) => {
      const peers = all.filter((peer) => peer.departmentCode === row.departmentCode && !ikNumbers.includes(peer.clinicIk));
      return { clinicIk: row.clinicIk, departmentCode: row.departmentCode, own: figuresOf(row), peers: peersOf(peers) };
    });
    return { ...windowOf(since), minimumPeers: ANSWER_STATISTICS_MINIMUM_PEERS, items };
  }

  private since(): Date {
    return new Date(this.clock().getTime() - ANSWER_STATISTICS_WINDOW_DAYS * DAY_MS);
  }
}

function windowOf(since: Date) {
  return { windowDays: ANSWER_STATISTICS_WINDOW_DAYS, since: since.toISOString(), minimumAnswers: ANSWER_STATISTICS_MINIMUM_ANSWERS };
}

/** The figures shown: the count always, the rest only from ANSWER_STATISTICS_MINIMUM_ANSWERS answers on. */
export function figuresOf(row: ClinicDepartmentFigures): AnswerFigures {
  if (row.answers < ANSWER_STATISTICS_MINIMUM_ANSWERS) return { answers: row.answers };
  return {
    answers: row.answers,
    medianSeconds: Math.round(row.medianSeconds),
    p90Seconds: Math.round(row.p90Seconds),
    acceptanceShare: share(row.accepted, row.answers),
  };
}

/** The median of the peers' own figures, each peer with enough answers counting once. */
export function peersOf(peers: readonly ClinicDepartmentFigures[]): PeerFigures {
  const counted = peers.filter((peer) => peer.answers >= ANSWER_STATISTICS_MINIMUM_ANSWERS);
  if (counted.length < ANSWER_STATISTICS_MINIMUM_PEERS) return { clinics: counted.length };
  return {
    clinics: counted.length,
    medianSeconds: Math.round(median(counted.map((peer) => peer.medianSeconds))),
    p90Seconds: Math.round(median(counted.map((peer) => peer.p90Seconds))),
    acceptanceShare: median(counted.map((peer) => share(peer.accepted, peer.answers))),
  };
}

/** Rounded to three places: a share of 2/3 reads 0.667. */
function share(part: number, whole: number): number {
  return Math.round((part / whole) * 1000) / 1000;
}

/** The median as percentile_cont(0.5) has it: the middle value, or the mean of the middle two. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const at = (index: number) => sorted[index] ?? 0;
  return sorted.length % 2 ? at(middle) : (at(middle - 1) + at(middle)) / 2;
}
