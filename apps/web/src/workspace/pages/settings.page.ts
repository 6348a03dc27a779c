import { HOLIDAY_REGIONS, type ReferrerSettings } from '@bedrequest/contracts';
import { html, type Html } from '../../inbox/html';
import { csrfField, layout, notice, type PageContext } from '../../inbox/pages/layout';
import { settingsTexts as t } from '../settings.texts.de';

/** The most working days a party's default answer deadline may be (docs/api.md, "Answer deadlines"). */
const MAX_WORKING_DAYS = 10;
/** The bounds of the rule's two numbers (docs/api.md, "Asking by rule"). */
const MAX_RULE_COUNT = 10;

/** The rule's form as entered: its fields as text, shown again when the service refused them. */
export type EscalationForm = Record<'whenOpenBelow' | 'askNext' | 'clinics' | 'postalCode' | 'latitude' | 'longitude', string>;

/** The hospital's settings (docs/workspace.md, "Einstellungen"): its default answer deadline and its rule for asking further clinics. */
export function settingsPage(
  context: PageContext,
  view: { settings: ReferrerSettings; flash?: { kind: 'success' | 'error'; message: string }; csrfToken: string; escalationForm?: EscalationForm },
): Html {
  const { workingDays, holidays } = view.settings.answerDeadline;
  const numbers = (name: string, label: string, selected: number) =>
    html`<div class="field"><label for="s-${name}">${label}</label><select id="s-${name}" name="${name}">${Array.from(
      { length: MAX_RULE_COUNT },
      (_, index) => html`<option value="${String(index + 1)}"${String(index + 1) === String(selected) ? html` selected` : ''}>${String(index + 1)}</option>`,
    )}</select></div>`;
  const form = view.escalationForm ?? formOf(view.settings);
  const text = (name: keyof EscalationForm, label: string, attributes: Html) =>
    html`<div class="field"><label for="s-${name}">${label}</label><input type="text" id="s-${name}" name="${name}" value="${form[name]}"${attributes}></div>`;
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
<form method="post" action="/workspace/settings/escalation" class="form" id="escalation-form">
${csrfField(view.csrfToken)}
<fieldset class="form-section"><legend>${t.escalation.legend}</legend>
<p class="hint">${t.escalation.intro}</p>
${view.settings.escalation ? '' : html`<p class="meta" id="escalation-none">${t.escalation.none}</p>`}
${numbers('whenOpenBelow', t.escalation.whenOpenBelow, Number(form.whenOpenBelow))}
${numbers('askNext', t.escalation.askNext, Number(form.askNext))}
<div class="field"><label for="s-clinics">${t.escalation.clinics}</label><p class="hint" id="s-clinics-hint">${t.escalation.clinicsHint}</p><textarea id="s-clinics" name="clinics" rows="4" aria-describedby="s-clinics-hint">${form.clinics}</textarea></div>
<p class="hint" id="s-origin-hint"><strong>${t.escalation.origin}.</strong> ${t.escalation.originHint}</p>
${text('postalCode', t.escalation.postalCode, html` inputmode="numeric" maxlength="5" autocomplete="off" aria-describedby="s-origin-hint"`)}
${text('latitude', t.escalation.latitude, html` inputmode="decimal" aria-describedby="s-origin-hint"`)}
${text('longitude', t.escalation.longitude, html` inputmode="decimal" aria-describedby="s-origin-hint"`)}
</fieldset>
<button type="submit" class="button" name="action" value="save">${t.escalation.save}</button>
${view.settings.escalation ? html` <button type="submit" class="button button-secondary" name="action" value="remove">${t.escalation.remove}</button>` : ''}
</form>
</div>`,
  });
}

/** The stored rule as the form shows it (decimal commas, one IK a line); defaults without one. */
function formOf(settings: ReferrerSettings): EscalationForm {
  const rule = settings.escalation;
  const decimal = (value: number | undefined) => (value === undefined ? '' : String(value).replace('.', ','));
  return {
    whenOpenBelow: String(rule?.whenOpenBelow ?? 2),
    askNext: String(rule?.askNext ?? 2),
    clinics: (rule?.clinics ?? []).join('\n'),
    postalCode: rule?.origin.postalCode ?? '',
    latitude: decimal(rule?.origin.latitude),
    longitude: decimal(rule?.origin.longitude),
  };
}
