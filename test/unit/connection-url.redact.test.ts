import { describe, expect, it } from 'vitest';
import { withoutPassword } from '../../src/store/connection-url.js';

describe('withoutPassword: what a log line may show of a PostgreSQL URL', () => {
  it('masks the password in the user part', () => {
    expect(withoutPassword('postgres://app:s3cret@db.example:5432/prod?schema=jobs')).toBe('postgres://app:***@db.example:5432/prod?schema=jobs');
  });

  it('masks a password given as a query parameter, which the pg driver reads too', () => {
    const shown = withoutPassword('postgres://app@db.example/prod?password=s3cret&sslpassword=k3y&schema=jobs');
    expect(shown).not.toContain('s3cret');
    expect(shown).not.toContain('k3y');
    expect(new URL(shown).searchParams.get('schema')).toBe('jobs');
    expect(new URL(shown).searchParams.get('password')).toBe('***');
  });

  it('leaves a URL without a secret as it is', () => {
    expect(withoutPassword('postgres://app@db.example/prod?schema=jobs')).toBe('postgres://app@db.example/prod?schema=jobs');
  });
});
