import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../shared/accounts/model';
import { AppError } from '../../shared/errors';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/** The one user-creation service calls the events port around the save (the events feature plugs in here). */

let platform: TestPlatform;
const proposed: User[] = [];
const created: User[] = [];

beforeAll(async () => {
  platform = await startTestPlatform(
    {},
    {
      events: {
        beforeCreate: async (user) => {
          proposed.push(user);
          if (user.email.startsWith('veto'))
            throw new AppError(422, {
              code: 'subscriber_refused',
              message: 'A subscriber refused this user.',
            });
        },
        afterCreate: (user) => {
          created.push(user);
        },
      },
    },
    { dataPlane: false },
  );
});
afterAll(async () => {
  await platform.stop();
});

const body = (email: string) => ({
  email,
  username: email.split('@')[0],
  password: 'a quiet harbour at dawn 42',
});

describe('createUser and the user-creation events port', () => {
  it('saves nothing when PRE_USER_CREATE refuses, and the caller gets the refusal', async () => {
    const response = await platform.adminApi.post('/api/cloud/users/', body('veto-1@example.com'));
    expect(response.status).toBe(422);
    expect(proposed.at(-1)?.email).toBe('veto-1@example.com');
    const users = await platform.adminApi.get('/api/cloud/users/?search=veto-1');
    expect(users.body.results ?? users.body).not.toContainEqual(
      expect.objectContaining({ email: 'veto-1@example.com' }),
    );
    expect(created.some((user) => user.email === 'veto-1@example.com')).toBe(false);
  });

  it('tells POST_USER_CREATE the saved user with its id', async () => {
    const response = await platform.adminApi.post('/api/cloud/users/', body('kept@example.com'));
    expect(response.status).toBe(201);
    expect(created.at(-1)).toMatchObject({ id: response.body.id, email: 'kept@example.com' });
  });
});
