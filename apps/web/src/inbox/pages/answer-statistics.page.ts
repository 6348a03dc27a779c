import type { OwnAnswerStatistics } from '@bedrequest/contracts';
import { answerStatisticsTexts as t, durationText, peerValue, percentText } from '../answer-statistics.texts.de';
import { html, type Html } from '../html';
import { layout, type PageContext } from './layout';

export interface AnswerStatisticsView {
  statistics: OwnAnswerStatistics;
  /** The department's name as the registry gives it, by its key. */
  departmentName: (code: string) => string;
}

/**
 * The clinic's own answer figures per department beside its peers' median (docs/inbox.md,
 * "Statistik"): one table per department, its figures only from enough answers, the peers' only
 * from enough peers.
 */
export function answerStatisticsPage(context: PageContext, view: AnswerStatisticsView): Html {
  const { statistics } = view;
  const own = (value: number | undefined, format: (value: number) => string) => (value === undefined ? t.notEnough(statistics.minimumAnswers) : format(value));
  const table = (item: OwnAnswerStatistics['items'][number]) => {
    const name = view.departmentName(item.departmentCode);
    const row = (label: string, mine: string, peers: string) => html`<tr><th scope="row">${label}</th><td>${mine}</td><td>${peers}</td></tr>`;
    return html`<section class="statistics" aria-labelledby="statistics-${item.clinicIk}-${item.departmentCode}">
<h2 id="statistics-${item.clinicIk}-${item.departmentCode}">${t.department(name)}</h2>
<table class="statistics-table">
<caption>${t.caption(name)}</caption>
<thead><tr><th scope="col">${t.figure}</th><th scope="col">${t.own}</th><th scope="col">${t.peers}</th></tr></thead>
<tbody>
${row(t.answers, String(item.own.answers), item.peers.clinics >= statistics.minimumPeers ? t.peerClinics(item.peers.clinics) : t.notEnoughPeers(item.peers.clinics))}
${row(t.median, own(item.own.medianSeconds, durationText), peerValue(item.peers, item.peers.medianSeconds, durationText))}
${row(t.p90, own(item.own.p90Seconds, durationText), peerValue(item.peers, item.peers.p90Seconds, durationText))}
${row(t.acceptance, own(item.own.acceptanceShare, percentText), peerValue(item.peers, item.peers.acceptanceShare, percentText))}
</tbody>
</table>
</section>`;
  };
  return layout(context, {
    title: t.title,
    section: 'statistics',
    body: html`<h1>${t.title}</h1>
<p>${t.intro(statistics.windowDays)}</p>
<p>${t.peersExplained(statistics.minimumPeers, statistics.minimumAnswers)}</p>
${statistics.items.length ? statistics.items.map(table) : html`<p class="empty">${t.none(statistics.windowDays)}</p>`}`,
  });
}
