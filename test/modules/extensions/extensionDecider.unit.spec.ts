// The extension decider and the bundle format's rules, given events / when command / then events, with no database.
import { describe, expect, it } from 'vitest';
import { checkNamespace, compareVersions, parseBundle } from '../../../domain/extensions/bundleFormat.ts';
import type { ExtensionBundleFacts } from '../../../domain/extensions/events.ts';
import { extensionDecider } from '../../../domain/extensions/extension.ts';
import { deciderSpecification } from '../../domain/deciderSpecification.ts';

const spec = deciderSpecification(extensionDecider);
const extensionId = '0195f0d2-0000-7000-8000-000000000001';
const facts = (version: string, capabilities: string[]): ExtensionBundleFacts => ({
  name: 'word-count',
  version,
  description: null,
  entry: 'run',
  capabilities,
  ui: null,
  keyId: 'k',
  official: false,
  signature: 'c2ln',
  sha256: 'ab',
  bundle: '{}',
});
const installed = { type: 'extension.installed', data: { extensionId, ...facts('1.0.0', ['log', 'items:read:a']) } };

describe('the extension decider', () => {
  it('installs once', () => {
    spec.given([]).when({ type: 'installExtension', extensionId, bundle: facts('1.0.0', ['log']) }).then([{ type: 'extension.installed', data: { extensionId, ...facts('1.0.0', ['log']) } }]);
    spec.given([installed]).when({ type: 'installExtension', extensionId, bundle: facts('1.0.0', []) }).thenThrows('CONFLICT', 409);
  });

  it('upgrades to a higher version only, keeping the grants the new bundle still asks for', () => {
    const granted = { type: 'extension.capabilities_granted', data: { extensionId, granted: ['log', 'items:read:a'] } };
    spec
      .given([installed, granted])
      .when({ type: 'upgradeExtension', bundle: facts('1.0.1', ['items:read:a', 'items:read:b']) })
      .then([{ type: 'extension.upgraded', data: { extensionId, previousVersion: '1.0.0', granted: ['items:read:a'], ...facts('1.0.1', ['items:read:a', 'items:read:b']) } }]);
    for (const version of ['1.0.0', '0.9.9', '1.0.0-rc.1']) {
      spec.given([installed]).when({ type: 'upgradeExtension', bundle: facts(version, []) }).thenThrows('CONFLICT', 409, ['body', 'bundle', 'manifest', 'version']);
    }
    spec.given([]).when({ type: 'upgradeExtension', bundle: facts('2.0.0', []) }).thenThrows('NOT_FOUND', 404);
  });

  it('enables and disables once each, and grants only what is asked for', () => {
    spec.given([installed]).when({ type: 'enableExtension' }).then([{ type: 'extension.enabled', data: { extensionId } }]);
    spec.given([installed, { type: 'extension.enabled', data: { extensionId } }]).when({ type: 'enableExtension' }).thenNothing();
    spec.given([installed]).when({ type: 'disableExtension' }).thenNothing();
    spec.given([installed]).when({ type: 'grantCapabilities', capabilities: ['items:read:a', 'log', 'log'] }).then([
      { type: 'extension.capabilities_granted', data: { extensionId, granted: ['log', 'items:read:a'] } },
    ]);
    spec.given([installed]).when({ type: 'grantCapabilities', capabilities: [] }).thenNothing();
    spec.given([installed]).when({ type: 'grantCapabilities', capabilities: ['log', 'items:read:b'] }).thenThrows('VALIDATION_FAILED', 400, ['body', 'capabilities', 1]);
    spec.given([]).when({ type: 'enableExtension' }).thenThrows('NOT_FOUND', 404);
  });
});

describe('the bundle format', () => {
  it('orders versions as semantic versioning does', () => {
    const ascending = ['0.9.0', '1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', '1.2.0', '1.10.0', '2.0.0'];
    for (let index = 1; index < ascending.length; index += 1) {
      expect(compareVersions(ascending[index - 1]!, ascending[index]!), `${ascending[index - 1]} < ${ascending[index]}`).toBeLessThan(0);
      expect(compareVersions(ascending[index]!, ascending[index - 1]!)).toBeGreaterThan(0);
    }
    expect(compareVersions('1.2.3', '1.2.3')).toBe(0);
  });

  it('parses a bundle with its defaults, and keeps @svc/ for official signers', () => {
    const bundle = parseBundle(JSON.stringify({ manifest: { name: '@svc/seo', version: '1.0.0', entry: 'run' }, code: 'exports.run = () => 1;' }));
    expect(bundle).toEqual({ manifest: { name: '@svc/seo', version: '1.0.0', entry: 'run', capabilities: [] }, code: 'exports.run = () => 1;' });
    expect(() => checkNamespace('@svc/seo', false)).toThrow('reserved official namespace');
    expect(() => checkNamespace('@svc/seo', true)).not.toThrow();
    expect(() => checkNamespace('@svcx/seo', false)).not.toThrow();
  });
});
