import { describe, expect, it } from 'vitest';
import type { PolicyRule } from '../../../shared/policy.js';
import { compilePattern, PolicySet } from './PolicySet.js';

const rule = (id: string, tools: string[], url: string, action: PolicyRule['action'], reason?: string): PolicyRule => ({ id, tools, url, action, ...(reason ? { reason } : {}) });

describe('PolicySet', () => {
  it('matches patterns with :// against the whole URL and others against the host', () => {
    const host = compilePattern('*.shop.example');
    expect(host('https://www.shop.example/cart', () => 'www.shop.example')).toBe(true);
    expect(host('https://shop.example.evil/x', () => 'shop.example.evil')).toBe(false);
    const whole = compilePattern('https://shop.example/checkout*');
    expect(whole('https://shop.example/checkout/pay', () => '')).toBe(true);
    expect(whole('https://shop.example/cart?next=/checkout', () => '')).toBe(false);
  });

  it('refuses invalid patterns by name', () => {
    expect(() => compilePattern('exa mple.com')).toThrow(/invalid URL pattern "exa mple.com"/);
    expect(() => compilePattern('example.com/path')).toThrow(/write the whole URL/);
    expect(() => compilePattern('ht^tp://x')).toThrow(/scheme/);
  });

  it('deny beats confirm, allow limits only the tools it names, and other tools cost nothing', () => {
    const set = new PolicySet([
      rule('pol-000001', ['navigate_page'], '*.bad.example', 'deny', 'no'),
      rule('pol-000002', ['navigate_page'], '*', 'confirm'),
      rule('pol-000003', ['new_page'], 'good.example', 'allow'),
    ]);
    expect(set.check('navigate_page', 'https://a.bad.example/')).toMatchObject({ action: 'deny', rule: { id: 'pol-000001' } });
    expect(set.check('navigate_page', 'https://good.example/')).toMatchObject({ action: 'confirm', rule: { id: 'pol-000002' } });
    expect(set.check('new_page', 'https://good.example/x')).toBeUndefined();
    expect(set.check('new_page', 'https://other.example/')).toMatchObject({ action: 'deny', rule: { id: 'pol-000003' } });
    expect(set.covers('click')).toBe(false);
    expect(set.check('click', 'https://a.bad.example/')).toBeUndefined();
  });
});
