import { createHash } from 'node:crypto';

/**
 * The script of "Unterlagen senden" (docs/workspace.md): it sends the form with its CSRF token in
 * the `x-csrf-token` header (session-pages.ts checks the token before any route reads a body, and
 * reads no multipart body), then follows the answer: the next page after a redirect, else the page
 * that came back (a refusal beside its field) in place of this one, the focus on its summary.
 *
 * Plain ES2020 in a string, served as a file of this origin (the Content-Security-Policy allows no
 * inline script).
 */
export const DOCUMENTS_SCRIPT = String.raw`(function () {
  'use strict';
  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute('data-documents-upload')) return;
    event.preventDefault();
    if (form.getAttribute('aria-busy') === 'true') return;
    var status = form.querySelector('.form-status');
    var button = form.querySelector('button[type="submit"]');
    var token = form.querySelector('input[name="_csrf"]');
    form.setAttribute('aria-busy', 'true');
    if (button) button.disabled = true;
    if (status) status.textContent = form.getAttribute('data-sending') || '';
    fetch(form.action, {
      method: 'POST',
      body: new FormData(form),
      headers: { 'x-csrf-token': token ? token.value : '' },
      credentials: 'same-origin',
      cache: 'no-store',
    })
      .then(function (response) {
        if (response.redirected) {
          window.location.assign(response.url);
          return undefined;
        }
        return response.text().then(function (markup) {
          var next = new DOMParser().parseFromString(markup, 'text/html');
          document.title = next.title;
          document.body.replaceWith(document.adoptNode(next.body));
          var summary = document.querySelector('.error-summary');
          var focus = summary || document.getElementById('main');
          if (focus) focus.focus();
        });
      })
      .catch(function () {
        form.removeAttribute('aria-busy');
        if (button) button.disabled = false;
        if (status) status.textContent = form.getAttribute('data-failed') || '';
      });
  });
})();
`;

/** Where the script is served below the workspace, its content's hash in the name. */
export const DOCUMENTS_SCRIPT_PATH = `/assets/documents-${createHash('sha256').update(DOCUMENTS_SCRIPT).digest('hex').slice(0, 12)}.js`;
