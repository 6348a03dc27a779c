import { PasswordHasher } from './password-hasher';

describe('PasswordHasher', () => {
  let hasher: PasswordHasher;
  beforeAll(async () => {
    hasher = await PasswordHasher.create();
  });

  it('hashes with Argon2id and a random salt', async () => {
    const first = await hasher.hash('correct horse battery staple');
    const second = await hasher.hash('correct horse battery staple');

    expect(first).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(first).not.toBe(second);
  });

  it('verifies the right password and refuses a wrong one', async () => {
    const stored = await hasher.hash('correct horse battery staple');

    await expect(hasher.verify(stored, 'correct horse battery staple')).resolves.toBe(true);
    await expect(hasher.verify(stored, 'correct horse battery stapler')).resolves.toBe(false);
  });

  it('treats a stored hash it cannot parse as a mismatch', async () => {
    await expect(hasher.verify('not-a-hash', 'anything')).resolves.toBe(false);
  });

  it('never accepts a password for an unknown user', async () => {
    await expect(hasher.verifyUnknownUser('')).resolves.toBe(false);
  });
});
