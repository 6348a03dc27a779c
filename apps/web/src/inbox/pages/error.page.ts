import { html, type Html } from '../html';
import { layout, notice, type PageContext } from './layout';

export function errorPage(context: PageContext, message: string): Html {
  const { texts } = context;
  return layout(context, {
    title: texts.errors.title,
    section: 'error',
    body: html`<h1>${texts.errors.title}</h1>
${notice('error', message)}
<p><a href="/inbox/tasks">${texts.errors.backToList}</a></p>`,
  });
}
