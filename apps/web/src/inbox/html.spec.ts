import { escapeHtml, html, safeHttpUrl } from './html';

describe('the inbox templates', () => {
  it('escape every interpolated text, in text and in attributes', () => {
    const name = `<script>alert("x")</script>'&`;
    expect(html`<p title="${name}">${name}</p>`.markup).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&amp;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&amp;</p>',
    );
    expect(escapeHtml('a & b')).toBe('a &amp; b');
  });

  it('keep markup made by html, lists of it, numbers, and drop nothing-values', () => {
    const items = ['<b>', 'c'].map((item) => html`<li>${item}</li>`);
    expect(html`<ul>${items}</ul>${undefined}${null}${false}${0}`.markup).toBe('<ul><li>&lt;b&gt;</li><li>c</li></ul>0');
  });

  it('turn only http(s) URLs into links', () => {
    expect(safeHttpUrl('https://hospital.example/requests/1')).toBe('https://hospital.example/requests/1');
    expect(safeHttpUrl('javascript:alert(1)')).toBeUndefined();
    expect(safeHttpUrl('/relative')).toBeUndefined();
    expect(safeHttpUrl(undefined)).toBeUndefined();
  });
});
