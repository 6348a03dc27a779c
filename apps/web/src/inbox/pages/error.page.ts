import { html, type Html } from '../html';
import { layout, notice, type PageContext } from './layout';

/** `back`: where the page leads on, the list's first page unless said. */
export function errorPage(context: PageContext, message: string, back?: { href: string; label: string }): Html {
  const { texts } = context;
  const { href, label } = back ?? { href: context.home ?? '/inbox/tasks', label: texts.errors.backToList };
  return layout(context, {
    title: texts.errors.title,
    section: 'error',
    body: html`<h1>${texts.errors.title}</h1>
${notice('error', message)}
<p><a href="${href}">${label}</a></p>`,
  });
}
