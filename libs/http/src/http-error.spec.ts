import { z } from 'zod';
import { HttpError } from './http-error';

describe('HttpError.parseInput', () => {
  const Answer = z.strictObject({
    status: z.enum(['accepted', 'declined']),
    note: z.string().max(10).optional(),
    beds: z.number().int().min(0).optional(),
    ward: z
      .string()
      .regex(/^\d{2}$/, 'must be a ward number of 2 digits')
      .optional(),
    items: z.array(z.strictObject({ code: z.string().min(1) })).optional(),
  });
  const refusalOf = (input: unknown): HttpError => {
    try {
      HttpError.parseInput(Answer, input);
    } catch (error) {
      if (error instanceof HttpError) return error;
      throw error;
    }
    throw new Error('the input was accepted');
  };

  it('returns what the schema parses', () => {
    expect(HttpError.parseInput(Answer, { status: 'accepted', beds: 2 })).toEqual({ status: 'accepted', beds: 2 });
  });

  it('is 400 invalid_request naming each refused field with what it must be, and the issues beside', () => {
    const refusal = refusalOf({ status: 'maybe', note: 'x'.repeat(11), beds: -1, ward: 'A', colour: 'blue', items: [{ code: '' }] });

    expect([refusal.status, refusal.code]).toEqual([400, 'invalid_request']);
    expect(refusal.message).toBe(
      'status: must be one of accepted, declined; note: must be at most 10 characters; beds: must be at least 0; ward: must be a ward number of 2 digits; items[0].code: must not be empty; colour: not allowed',
    );
    expect(refusal.issues).toEqual(
      expect.arrayContaining([
        { code: 'structure', diagnostics: 'not allowed', expression: 'colour' },
        { code: 'invalid', diagnostics: 'must be at least 0', expression: 'beds' },
      ]),
    );
  });

  it('says a missing field is required and a value of the wrong type what type it must be', () => {
    expect(refusalOf({ beds: 1.5, note: 3 }).message).toBe('status: is required; note: must be a string; beds: must be a whole number');
  });

  it('names the body as a whole when it is missing or not an object', () => {
    expect(refusalOf(undefined).message).toBe('body: is required');
    expect(refusalOf(['accepted']).message).toBe('body: must be a JSON object');
  });

  it('stays short whatever was sent: no value quoted, long unknown names shortened, at most ten fields named', () => {
    const sent: Record<string, unknown> = { status: 'accepted', [`Mustermann${'x'.repeat(1000)}`]: 1 };
    for (let index = 0; index < 20; index++) sent[`extra${index}`] = 'Erika Mustermann';

    const refusal = refusalOf(sent);

    expect(refusal.message).toMatch(/^Mustermannx{54}…: not allowed; extra0: not allowed; .*extra8: not allowed; and 11 more$/);
    expect(refusal.message.length).toBeLessThan(300);
    expect(refusal.message).not.toContain('Erika');
    expect(refusal.issues).toHaveLength(21);
  });
});
