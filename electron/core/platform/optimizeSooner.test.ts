import { describe, expect, it } from 'vitest';
import { optimizeSooner } from './optimizeSooner.js';

describe('optimizeSooner', () => {
  it('leaves V8 versions other than 11 as they are', () => {
    expect(optimizeSooner('12.4.254.21-node.33')).toBe(false);
    expect(optimizeSooner('13.6.233.10')).toBe(false);
  });
});
