import { describe, expect, it } from 'vitest';

import { isCommonPassword } from '../../src/security/common-passwords';

describe('common passwords', () => {
  it('finds the most used ones whatever their case or Unicode compatibility form', async () => {
    for (const password of [
      'password',
      'Password1',
      'QWERTYUIOP',
      '1qaz2wsx',
      'ｑｗｅｒｔｙ１２３',
    ]) {
      expect(await isCommonPassword(password), password).toBe(true);
    }
  });

  it('finds a repeated character or short block, and a straight run', async () => {
    for (const password of ['zzzzzzzzzz', 'abababab', '123123123', 'abcdefgh', 'hgfedcba']) {
      expect(await isCommonPassword(password), password).toBe(true);
    }
  });

  it('lets through what merely looks like them', async () => {
    for (const password of [
      'correct horse battery',
      'violet anchor drizzle',
      'password-for-kegel-2026',
      'abcdefgz',
      'aaaaaaab',
      'abcdeabcde',
      'motdepassé-du-lundi',
    ]) {
      expect(await isCommonPassword(password), password).toBe(false);
    }
  });
});
