import { describe, expect, it } from 'vitest';
import { optimizeSooner } from './optimizeSooner.js';

describe('optimizeSooner', () => {
  it('leaves V8 versions other than 11 as they are', () => {
    expect(optimizeSooner('12.4.254.21-node.33')).toBe(false);
    expect(optimizeSooner('13.6.233.10')).toBe(false);
  });

  it('keeps a budget given to Node, on its command line or in NODE_OPTIONS', () => {
    expect(optimizeSooner('11.3.244.8-node.33', ['--max-old-space-size=64', '--interrupt-budget=67584'])).toBe(false);
    expect(optimizeSooner('11.3.244.8-node.33', ['--interrupt_budget=1000'])).toBe(false);
  });
});
