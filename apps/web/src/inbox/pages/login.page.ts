import { html, type Html } from '../html';
import { csrfField, layout, notice, type PageContext } from './layout';

export function loginPage(context: PageContext, form: { csrfToken: string; username?: string; error?: string; info?: string }): Html {
  const t = context.texts.login;
  return layout(context, {
    title: t.title,
    section: 'login',
    body: html`<div class="narrow">
<h1>${t.title}</h1>
<p>${t.intro}</p>
${form.info ? notice('info', form.info) : ''}
${form.error ? notice('error', form.error, 'login-error') : ''}
<form method="post" action="${context.mount ?? '/inbox'}/login" class="form"${form.error ? html` aria-describedby="login-error"` : ''}>
  ${csrfField(form.csrfToken)}
  <div class="field">
    <label for="username">${t.username}</label>
    <input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required maxlength="256" value="${form.username ?? ''}"${form.error ? html` aria-invalid="true"` : ''}>
  </div>
  <div class="field">
    <label for="password">${t.password}</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024"${form.error ? html` aria-invalid="true"` : ''}>
  </div>
  <button type="submit" class="button">${t.submit}</button>
</form>
</div>`,
  });
}
