import { describe, expect, it } from 'vitest';
import { siteDecider, type SiteEvent } from '../../../domain/sites/site.ts';
import type { SiteConfigChanges } from '../../../domain/sites/siteConfig.ts';
import { applySiteConfigChanges, initialSiteConfig, isHostname, isHslTriple, isHttpUrl } from '../../../domain/sites/siteConfig.ts';
import { deciderSpecification } from '../deciderSpecification.ts';

const spec = deciderSpecification(siteDecider);
const created = { type: 'site.created', data: { siteId: 'acme', name: 'Acme', createdAt: '2026-01-01T00:00:00.000Z' } };
const configured = (changes: SiteConfigChanges): SiteEvent => ({ type: 'site.configured', data: { siteId: 'acme', changes } });

describe('site configuration', () => {
  it('records only the fields that change: branding by key, theme overrides by mode', () => {
    const history = [created, configured({ displayTitle: 'Acme News', branding: { logoUrl: 'https://a.test/logo.svg' }, themeOverrides: { dark: { primary: '1 2% 3%' } } })];
    spec
      .given(history)
      .when({
        type: 'configureSite',
        siteId: 'acme',
        changes: {
          displayTitle: 'Acme News',
          name: 'Acme Media',
          branding: { logoUrl: 'https://a.test/logo.svg', brandColor: '#123' },
          themeOverrides: { dark: { primary: '1 2% 3%' }, light: { ring: '4 5% 6%' } },
        },
      })
      .then([configured({ name: 'Acme Media', branding: { brandColor: '#123' }, themeOverrides: { light: { ring: '4 5% 6%' } } })]);
  });

  it('appends nothing when nothing changes, and clears theme overrides only when there are some', () => {
    spec.given([created]).when({ type: 'configureSite', siteId: 'acme', changes: { name: 'Acme', defaultAppearance: 'auto' } }).thenNothing();
    spec.given([created]).when({ type: 'configureSite', siteId: 'acme', changes: { themeOverrides: null } }).thenNothing();
    spec
      .given([created, configured({ themeOverrides: { light: { ring: '4 5% 6%' } } })])
      .when({ type: 'configureSite', siteId: 'acme', changes: { themeOverrides: null } })
      .then([configured({ themeOverrides: null })]);
  });

  it('answers SITE_NOT_FOUND for a site that is not active', () => {
    spec.given([]).when({ type: 'configureSite', siteId: 'acme', changes: { name: 'X' } }).thenThrows('SITE_NOT_FOUND', 404);
  });

  it('applies a change by merging branding and replacing the theme modes given', () => {
    const start = applySiteConfigChanges(initialSiteConfig('Acme'), { branding: { logoUrl: 'https://a.test/l.png' }, themeOverrides: { light: { ring: '1 1% 1%' }, dark: { ring: '2 2% 2%' } } });
    const next = applySiteConfigChanges(start, { branding: { brandColor: '#fff' }, themeOverrides: { dark: { border: '3 3% 3%' } } });
    expect(next.branding).toEqual({ logoUrl: 'https://a.test/l.png', faviconUrl: null, brandColor: '#fff' });
    expect(next.themeOverrides).toEqual({ light: { ring: '1 1% 1%' }, dark: { border: '3 3% 3%' } });
    expect(applySiteConfigChanges(next, { themeOverrides: null }).themeOverrides).toEqual({ light: {}, dark: {} });
  });

  it.each([
    ['222.2 47.4% 11.2%', true],
    ['0 0% 100%', true],
    ['360 100% 0%', true],
    ['361 0% 0%', false],
    ['0 101% 0%', false],
    ['0 0 0', false],
    ['red', false],
    ['1 2% 3% ; }', false],
  ])('reads %j as an H S%% L%% value: %s', (value, valid) => {
    expect(isHslTriple(value)).toBe(valid);
  });

  it('knows host names and http(s) URLs', () => {
    expect(isHostname('news.example.com')).toBe(true);
    expect(isHostname('localhost')).toBe(false);
    expect(isHostname('http://x.com')).toBe(false);
    expect(isHttpUrl('https://a.test/x')).toBe(true);
    expect(isHttpUrl('javascript:alert(1)')).toBe(false);
    expect(isHttpUrl('ftp://a.test')).toBe(false);
  });
});
