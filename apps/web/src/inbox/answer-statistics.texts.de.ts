import type { AnswerFigures, PeerFigures } from '@bedrequest/contracts';

/** A time to answer in German words: minutes below two hours, hours below two days, days after. */
export function durationText(seconds: number): string {
  const minutes = Math.round(seconds / 60);
  if (minutes < 120) return minutes === 1 ? '1 Minute' : `${minutes} Minuten`;
  const hours = Math.round(seconds / 3600);
  if (hours < 48) return `${hours} Stunden`;
  return `${Math.round(seconds / 86_400)} Tage`;
}

/** A share 0…1 as whole percent, German style: "67 %". */
export function percentText(share: number): string {
  return `${Math.round(share * 100)} %`;
}

/** The answer statistics (docs/inbox.md, "Statistik"; docs/workspace.md, "Antwortzeiten der Kliniken"). */
export const answerStatisticsTexts = {
  title: 'Statistik',
  intro: (days: number) =>
    `Wie schnell und wie Ihre Klinik in den letzten ${days} Tagen auf Anfragen geantwortet hat, je Fachabteilung: gezählt wird die erste Antwort Ihrer Klinik auf jede Anfrage (Zusage, Absage, Rückfrage oder Nachforderung), gemessen ab dem Versand der Anfrage. Automatische Antworten zählen nicht.`,
  peersExplained: (minimumPeers: number, minimumAnswers: number) =>
    `Vergleich: der Median der anderen Kliniken derselben Fachabteilung, jede Klinik einmal gezählt. Er wird erst ab ${minimumPeers} Vergleichskliniken mit je mindestens ${minimumAnswers} Antworten gezeigt, damit keine einzelne Klinik erkennbar ist. Werte einzelner anderer Kliniken sehen Sie nie.`,
  none: (days: number) => `Ihre Klinik hat in den letzten ${days} Tagen noch keine Anfrage beantwortet.`,
  department: (name: string) => `Fachabteilung ${name}`,
  caption: (name: string) => `Antwortzeiten und Zusagen, Fachabteilung ${name}`,
  figure: 'Kennzahl',
  own: 'Ihre Klinik',
  peers: 'Vergleichskliniken (Median)',
  answers: 'Beantwortete Anfragen',
  median: 'Antwort meist nach (Median)',
  p90: '9 von 10 Antworten nach höchstens (90. Perzentil)',
  acceptance: 'Anteil Zusagen',
  notEnough: (minimum: number) => `zu wenige Antworten (unter ${minimum})`,
  notEnoughPeers: (clinics: number) => (clinics === 1 ? 'zu wenige Vergleichskliniken (1)' : `zu wenige Vergleichskliniken (${clinics})`),
  peerClinics: (clinics: number) => `${clinics} Kliniken`,
  /** One clinic's figures beside its name where the hospital chooses clinics. */
  choice: (figures: AnswerFigures | undefined, days: number): string => {
    if (!figures || figures.answers === 0) return `noch keine Antworten in ${days} Tagen`;
    if (figures.medianSeconds === undefined || figures.p90Seconds === undefined || figures.acceptanceShare === undefined) {
      return `zu wenige Antworten für eine Statistik (${figures.answers} in ${days} Tagen)`;
    }
    return `antwortet meist nach ${durationText(figures.medianSeconds)}, 9 von 10 nach ${durationText(figures.p90Seconds)}, ${percentText(figures.acceptanceShare)} Zusagen (${figures.answers} Antworten in ${days} Tagen)`;
  },
};

/** The value of one peers' figure, or why there is none. */
export function peerValue(peers: PeerFigures, value: number | undefined, format: (value: number) => string): string {
  return value === undefined ? answerStatisticsTexts.notEnoughPeers(peers.clinics) : format(value);
}
