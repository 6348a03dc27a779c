/**
 * The inbox's HTML templates: a tagged template that escapes every interpolated value unless it is
 * itself markup made by `html` (nested templates, lists of them). Values go only into text and
 * quoted attribute values, where escaping `& < > " '` is enough (OWASP XSS prevention, rules 1 and
 * 2); URLs from the data are checked by `safeHttpUrl` before they become an `href`.
 *
 * Written here rather than taken from a library: it is twenty lines, and the small tag libraries
 * (escape-html-template-tag and the like) do the same without the type that marks trusted markup.
 */
export class Html {
  constructor(readonly markup: string) {}

  toString(): string {
    return this.markup;
  }
}

/** What a template may interpolate: text (escaped), markup, lists of either, and nothing (`undefined`, `null`, `false`). */
export type Interpolation = string | number | Html | undefined | null | false | readonly Interpolation[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? character);
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): Html {
  let markup = strings[0] ?? '';
  values.forEach((value, index) => {
    markup += render(value) + (strings[index + 1] ?? '');
  });
  return new Html(markup);
}

function render(value: Interpolation): string {
  if (value === undefined || value === null || value === false) return '';
  if (value instanceof Html) return value.markup;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** An http(s) URL that may become a link; anything else (`javascript:`, relative, malformed) is not. */
export function safeHttpUrl(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
