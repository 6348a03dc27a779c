import { businessStatusOf } from '@bedrequest/contracts';
import { html, type Html } from '../html';
import { layout, notice, type PageContext } from './layout';
import { answersOf } from './task-answers';
import { kindOf, sizeOf } from './task-documents';
import { statusText } from './task-list.page';
import { requestNumberLine, summaryOf } from './task-summary';
import { sectionOf, type TaskViewModel } from './task-view.page';

/**
 * One request to print (`GET /inbox/tasks/{id}/print`; docs/inbox.md, "A request"), on one or two
 * pages: the clinic, the request's number, the summary, the request's sections, the clinic's answers
 * and the documents by name. No navigation, no form, no history: the page prints as it is shown,
 * its one link back hidden from the print (inbox-style.ts, `@media print`).
 */
export function taskPrintPage(context: PageContext, model: TaskViewModel, now: Date): Html {
  const { texts } = context;
  const t = texts.task;
  const { task, latest, formats } = model;
  const title = `${t.title}: ${texts.patientShort(latest?.view.patient.gender, latest?.view.patient.age)}`;
  const status = statusText({ status: task.status, ...(businessStatusOf(task) ? { businessStatus: businessStatusOf(task) } : {}) }, texts);
  return layout(context, {
    title: `${t.printTitle}: ${title}`,
    section: 'tasks',
    bare: true,
    body: html`<div class="print-actions"><p><a href="/inbox/tasks/${task.id}">← ${t.printBack}</a></p><p class="hint">${t.printHint}</p></div>
<h1 id="task-title">${title}</h1>
${requestNumberLine(task.id, texts)}
<p class="meta">${context.signedIn?.clinic ?? ''} · ${t.receivedAt(formats.instant(task.authoredOn) ?? '')} · ${status} · ${t.printedAt(formats.instant(now.toISOString()) ?? '')}</p>
${model.erased ? notice('info', t.erased) : ''}
${latest ? summaryOf(latest, texts, formats, model.referrer) : ''}
<div class="print-sections">
${latest ? latest.view.sections.map((section) => sectionOf(t.sections[section.name], section.fields, new Set(), texts, section.name === 'diagnoses' ? t.noDiagnoses : section.name === 'notes' ? t.noNotes : t.none)) : ''}
</div>
<section aria-labelledby="answers-heading">
<h2 id="answers-heading">${t.sections.answers}</h2>
${answersOf(task, texts, formats, model.timeline)}
</section>
<section aria-labelledby="documents-heading">
<h2 id="documents-heading">${t.sections.documents}</h2>
${
  model.attachments.length
    ? html`<ul class="documents">${model.attachments.map(
        (attachment) =>
          html`<li>${attachment.title ?? t.documentName(attachment.document + 1, attachment.index + 1)} <span class="meta">(${kindOf(attachment, texts)}, ${sizeOf(attachment.size)}${attachment.receivedAt ? html`, ${t.documentFrom(formats.instant(attachment.receivedAt) ?? '')}` : ''})</span></li>`,
      )}</ul>`
    : html`<p>${t.noDocuments}</p>`
}
</section>`,
  });
}
