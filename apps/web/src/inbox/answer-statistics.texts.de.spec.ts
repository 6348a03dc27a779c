import { answerStatisticsTexts, durationText, percentText } from './answer-statistics.texts.de';

describe('the answer statistics in German', () => {
  it('says minutes below two hours, hours below two days, days after', () => {
    expect([60, 119 * 60, 2 * 3600, 47 * 3600, 48 * 3600, 10 * 86_400].map(durationText)).toEqual([
      '1 Minute',
      '119 Minuten',
      '2 Stunden',
      '47 Stunden',
      '2 Tage',
      '10 Tage',
    ]);
    expect(percentText(0.667)).toBe('67 %');
  });

  it('says a clinic’s figures beside its name, or that there are too few', () => {
    expect(answerStatisticsTexts.choice({ answers: 12, medianSeconds: 3 * 3600, p90Seconds: 20 * 3600, acceptanceShare: 0.6 }, 90)).toBe(
      'antwortet meist nach 3 Stunden, 9 von 10 nach 20 Stunden, 60 % Zusagen (12 Antworten in 90 Tagen)',
    );
    expect(answerStatisticsTexts.choice({ answers: 3 }, 90)).toBe('zu wenige Antworten für eine Statistik (3 in 90 Tagen)');
    expect(answerStatisticsTexts.choice(undefined, 90)).toBe('noch keine Antworten in 90 Tagen');
  });
});
