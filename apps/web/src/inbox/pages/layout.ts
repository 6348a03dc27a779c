import { html, type Html, type Interpolation } from '../html';
import type { Texts } from '../texts.de';

/** What every page needs besides its content. */
export interface PageContext {
  texts: Texts;
  assets: { script: string; style: string };
  /** The signed-in clinic, absent on the login page. */
  signedIn?: { clinic: string; csrfToken: string };
  /** A message of the step before, shown once at the top of the page (an answer sent: docs/inbox.md, "Antworten"). */
  notice?: Html;
  /** The clinic's automatic answers are on: every page says so (docs/inbox.md, "Betten"). */
  automaticAnswers?: boolean;
  /** Where the pages are mounted (their login, logout and navigation), and their first page: the clinic inbox's when absent. */
  mount?: string;
  home?: string;
  /** The navigation of the signed-in pages: the inbox's (requests, beds) when absent. */
  nav?: readonly NavItem[];
  /** A sandbox (SANDBOX): every page, the login, error and print pages too, says it is no real service. */
  sandbox?: boolean;
}

export type Section =
  'tasks' | 'beds' | 'statistics' | 'login' | 'error' | 'requests' | 'new-request' | 'drafts' | 'people' | 'settings' | 'notifications' | 'webhooks';

export interface NavItem {
  readonly section: Section;
  readonly href: string;
  readonly label: string;
}

/**
 * The frame of every page: language, one stylesheet and one deferred script (nothing inline: the
 * Content-Security-Policy allows only files of this origin), a skip link, the header with the
 * navigation and the logout button, and the page's `main`.
 */
export function layout(context: PageContext, page: { title: string; section: Section; body: Interpolation; bare?: boolean }): Html {
  const { texts, signedIn } = context;
  const mount = context.mount ?? '/inbox';
  const nav = context.nav ?? [
    { section: 'tasks', href: '/inbox/tasks', label: texts.nav.tasks },
    { section: 'beds', href: '/inbox/beds', label: texts.nav.beds },
    { section: 'statistics', href: '/inbox/statistics', label: texts.nav.statistics },
    { section: 'notifications', href: '/inbox/notifications', label: texts.nav.notifications },
  ];
  const navLink = ({ section, href, label }: NavItem) =>
    html`<li><a href="${href}"${section === page.section ? html` aria-current="page"` : ''}>${label}</a></li>`;
  return html`<!doctype html>
<html lang="${texts.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title} – ${texts.appName}</title>
<link rel="stylesheet" href="${context.assets.style}">
<script src="${context.assets.script}" defer></script>
</head>
<body${page.bare ? html` class="bare"` : ''}>
${context.sandbox ? sandboxBanner(texts) : ''}${
    // A page to print (pages/task-print.page.ts) has no header, navigation or logout.
    page.bare
      ? ''
      : html`<a class="skip-link" href="#main">${texts.skipToContent}</a>
<header class="site-header">
  <p class="brand">${texts.appName}</p>
  ${
    signedIn
      ? html`<p class="clinic">${signedIn.clinic}</p>
  <nav aria-label="${texts.mainNavigation}"><ul class="nav">${nav.map(navLink)}</ul></nav>
  <form class="logout" method="post" action="${mount}/logout">${csrfField(signedIn.csrfToken)}<button type="submit" class="button button-secondary">${texts.nav.logout}</button></form>`
      : ''
  }
</header>`
  }
<main id="main" tabindex="-1">
${signedIn && context.automaticAnswers && !page.bare ? automaticAnswersBanner(texts) : ''}${context.notice ?? ''}${page.body}
</main>
</body>
</html>
`;
}

/** Before the header, in a landmark of its own: what a person sees first, on every page (docs/workspace.md, "Webhook-Inspektor (nur Sandbox)"). */
function sandboxBanner(texts: Texts): Html {
  return html`<aside class="banner-sandbox" id="sandbox-banner" aria-label="${texts.sandbox.label}"><p>${texts.sandbox.banner}</p></aside>
`;
}

function automaticAnswersBanner(texts: Texts): Html {
  const t = texts.beds.autoAnswer;
  return html`<p class="banner-automatic" id="automatic-answers-banner">${t.banner} <a href="/inbox/beds#auto-heading">${t.bannerLink}</a></p>`;
}

export function csrfField(token: string): Html {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

/** A message box: `status` for news, `alert` for a refusal or an error (read out at once). */
export function notice(kind: 'success' | 'info' | 'warning' | 'error', message: Interpolation, id?: string): Html {
  const role = kind === 'error' || kind === 'warning' ? 'alert' : 'status';
  return html`<div class="notice notice-${kind}" role="${role}"${id ? html` id="${id}"` : ''}>${message}</div>`;
}
