import { afterEach, describe, expect, it } from 'vitest';
import { defaultProvider } from '../../shared/adapters/aws/lambda-credentials';

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

describe('Lambda credentials', () => {
  it("are the execution role's, from the environment Lambda sets", async () => {
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: 'ASIAEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_SESSION_TOKEN: 'session',
    });
    await expect(defaultProvider({})()).resolves.toEqual({
      accessKeyId: 'ASIAEXAMPLE',
      secretAccessKey: 'secret',
      sessionToken: 'session',
    });
  });

  it('say so when the environment has none, without a session token when there is none', async () => {
    delete process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_SECRET_ACCESS_KEY;
    delete process.env.AWS_SESSION_TOKEN;
    await expect(defaultProvider()()).rejects.toThrow(/AWS_ACCESS_KEY_ID/);
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIA', AWS_SECRET_ACCESS_KEY: 'secret' });
    await expect(defaultProvider()()).resolves.toEqual({ accessKeyId: 'AKIA', secretAccessKey: 'secret' });
  });
});
