import { codeOfStatus, errorCodes } from './error-codes';

describe('the error codes', () => {
  it.each([
    [400, 'invalid_request'],
    [401, 'unauthorized'],
    [403, 'forbidden'],
    [404, 'not_found'],
    [405, 'method_not_allowed'],
    [409, 'conflict'],
    [410, 'gone'],
    [413, 'payload_too_large'],
    [415, 'unsupported_media_type'],
    [429, 'too_many_requests'],
  ])('give a %d that express raised without saying more its generic code, %s', (status, code) => {
    expect(codeOfStatus(status)).toBe(code);
    expect(errorCodes[codeOfStatus(status)].status).toBe(status);
  });

  it('give any other 4xx the code of a bad request', () => {
    expect(codeOfStatus(418)).toBe('invalid_request');
    expect(codeOfStatus(422)).toBe('invalid_request');
  });
});
