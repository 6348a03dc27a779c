import { de } from '../texts.de';
import { inboxStyle } from './inbox-style';

describe('the inbox stylesheet', () => {
  it("labels the narrow list's cells with the column names of the texts, as CSS strings", () => {
    const css = inboxStyle(de);
    expect(css).toContain('.task-list td:nth-of-type(1)::before { content: "Fachrichtung: "; }');
    expect(css).toContain('.task-list td:nth-of-type(3)::before { content: "Antwort bis: "; }');
    expect(css).toContain('.task-list td:nth-of-type(7)::before { content: "Status: "; }');
    const quoted = inboxStyle({ ...de, list: { ...de.list, columns: { ...de.list.columns, specialty: 'a"b\\c\nd' } } });
    expect(quoted).toContain('content: "a\\"b\\\\c d: "');
  });
});
