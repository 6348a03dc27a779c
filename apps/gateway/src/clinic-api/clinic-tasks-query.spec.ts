import { HttpError } from '@bedrequest/http';
import { passedQuery } from './clinic-pages';
import { ClinicTaskListQuery } from './clinic-tasks.router';

describe("the clinic list's query as the gateway lets it through", () => {
  it('passes an order and a search on to intake', () => {
    expect(passedQuery(ClinicTaskListQuery, { _sort: '-occurrence', q: '3F9A-12C0', state: 'new' }).toString()).toBe('state=new&_sort=-occurrence&q=3F9A-12C0');
  });

  it.each([
    [{ _sort: 'patient' }, /_sort: one of occurrence, -occurrence, authored, -authored, status, deadline, -deadline/],
    [{ q: '' }, /^q: /],
    [{ q: '   ' }, /^q: /],
    [{ q: 'x'.repeat(101) }, /^q: /],
    [{ q: 'S72\nM16' }, /^q: /],
    [{ q: ['a', 'b'] }, /^q: /],
    [{ search: 'S72' }, /unknown parameter search \(known: state, since, _sort, q, _count, _offset, _cursor\)/],
  ])('refuses %j with 400', (query, message) => {
    let refusal: unknown;
    try {
      passedQuery(ClinicTaskListQuery, query);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(HttpError);
    expect((refusal as HttpError).message).toMatch(message);
  });
});
