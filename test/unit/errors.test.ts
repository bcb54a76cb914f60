import { describe, expect, it } from 'vitest';
import {
  AppError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  GoneError,
  MethodNotAllowedError,
  NotFoundError,
  PermissionDeniedError,
  TooManyRequestsError,
  ValidationError,
} from '../../shared/errors';

describe('the error taxonomy', () => {
  it('gives each class its status, and its code, message and title when the caller leaves them out', () => {
    const cases: Array<[AppError, number, string, string, string | undefined]> = [
      [
        new ValidationError({ fields: { name: ['Required.'] } }),
        400,
        'validation_error',
        'Validation failed',
        'Validation failed',
      ],
      [
        new AuthenticationError(),
        401,
        'not_authenticated',
        'Authentication credentials were not provided.',
        'Authentication required',
      ],
      [
        new PermissionDeniedError(),
        403,
        'permission_denied',
        'You do not have permission to perform this action.',
        'Permission denied',
      ],
      [new NotFoundError(), 404, 'not_found', 'Not found.', 'Not found'],
      [
        new MethodNotAllowedError({ allowed: ['GET'] }),
        405,
        'method_not_allowed',
        'Method not allowed.',
        'Method not allowed',
      ],
      [
        new TooManyRequestsError({ retryAfterSeconds: 7 }),
        429,
        'rate_limited',
        'Request was throttled.',
        'Too many requests',
      ],
    ];
    for (const [error, status, code, message, title] of cases) {
      expect(error).toBeInstanceOf(AppError);
      expect({ status: error.status, code: error.code, message: error.message, title: error.title }).toEqual({
        status,
        code,
        message,
        title,
      });
    }
  });

  it('takes every detail by name, so none can land in the wrong place', () => {
    const cause = new Error('underlying');
    const error = new ConflictError({
      code: 'unique_violation',
      message: 'name exists',
      extra: { field: 'name' },
      title: 'Duplicate',
      cause,
    });
    expect(error).toMatchObject({
      status: 409,
      code: 'unique_violation',
      message: 'name exists',
      title: 'Duplicate',
    });
    expect(error.extra).toEqual({ field: 'name' });
    expect(error.cause).toBe(cause);
    expect(new BadRequestError({ code: 'bad', message: 'Bad.' })).toMatchObject({
      status: 400,
      title: undefined,
    });
    expect(new GoneError({ message: 'Used.', code: 'invitation_used' })).toMatchObject({
      status: 410,
      title: 'Gone',
    });
    expect(new NotFoundError({ code: 'table_not_found', message: 'No table.' })).toMatchObject({
      code: 'table_not_found',
      title: 'Not found',
    });
    expect(new TooManyRequestsError({ retryAfterSeconds: 7 }).extra).toEqual({ retry_after: 7 });
    expect(new MethodNotAllowedError({ allowed: ['GET', 'POST'] }).allowed).toEqual(['GET', 'POST']);
  });

  it('keeps the one-field shorthand of a validation error', () => {
    const error = ValidationError.field('depth', 'Too deep.', 'depth_exceeded');
    expect(error).toMatchObject({ status: 400, code: 'depth_exceeded', message: 'Too deep.' });
    expect(error.fields).toEqual({ depth: ['Too deep.'] });
  });
});
