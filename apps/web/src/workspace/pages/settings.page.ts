import { HOLIDAY_REGIONS, type ReferrerSettings } from '@bedrequest/contracts';
import { html, type Html } from '../../inbox/html';
import { csrfField, layout, notice, type PageContext } from '../../inbox/pages/layout';
import { settingsTexts as t } from '../settings.texts.de';

/** The most working days a party's default answer deadline may be (docs/api.md, "Answer deadlines"). */
const MAX_WORKING_DAYS = 10;

/** The hospital's settings (docs/workspace.md, "Einstellungen"): its default answer deadline. */
export function settingsPage(
  context: PageContext,
  view: { settings: ReferrerSettings; flash?: { kind: 'success' | 'error'; message: string }; csrfToken: string },
): Html {
  const { workingDays, holidays } = view.settings.answerDeadline;
  return layout(context, {
    title: t.title,
    section: 'settings',
    body: html`<div class="narrow">
<h1>${t.title}</h1>
${view.flash ? notice(view.flash.kind, view.flash.message) : ''}
<form method="post" action="/workspace/settings" class="form">
${csrfField(view.csrfToken)}
<fieldset class="form-section"><legend>${t.deadline}</legend>
<p class="hint" id="deadline-intro">${t.intro}</p>
<div class="field"><label for="s-working-days">${t.workingDays}</label><select id="s-working-days" name="workingDays" aria-describedby="deadline-intro">${Array.from(
      { length: MAX_WORKING_DAYS },
      (_, index) => html`<option value="${String(index + 1)}"${index + 1 === workingDays ? html` selected` : ''}>${String(index + 1)}</option>`,
    )}</select></div>
<div class="field"><label for="s-holidays">${t.holidays}</label><select id="s-holidays" name="holidays">${HOLIDAY_REGIONS.map(
      (region) => html`<option value="${region}"${region === holidays ? html` selected` : ''}>${t.holidayNames[region] ?? region}</option>`,
    )}</select></div>
</fieldset>
<button type="submit" class="button">${t.save}</button>
</form>
</div>`,
  });
}
