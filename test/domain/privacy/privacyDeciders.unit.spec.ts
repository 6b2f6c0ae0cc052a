// The consent and restriction deciders: given events / when command / then events.
import { describe, it } from 'vitest';
import { consentDecider } from '../../../domain/privacy/consent.ts';
import { restrictionDecider } from '../../../domain/privacy/restriction.ts';
import { deciderSpecification } from '../deciderSpecification.ts';

const userId = '0190f5a2-7c1e-7000-8000-000000000001';
const choice = { userId, consentType: 'marketing' as const, source: 'banner', version: 'v1' };

describe('a consent', () => {
  const spec = deciderSpecification(consentDecider);

  it('is granted, then withdrawn', () => {
    spec.given([]).when({ type: 'setConsent', ...choice, granted: true }).then([{ type: 'consent_granted', data: choice }]);
    spec.given([{ type: 'consent_granted', data: choice }]).when({ type: 'setConsent', ...choice, granted: false }).then([{ type: 'consent_withdrawn', data: choice }]);
  });

  it('records a refusal made before any grant', () => {
    spec.given([]).when({ type: 'setConsent', ...choice, granted: false }).then([{ type: 'consent_withdrawn', data: choice }]);
  });

  it('records nothing when the same choice is made again, and a new version of the same choice', () => {
    spec.given([{ type: 'consent_granted', data: choice }]).when({ type: 'setConsent', ...choice, granted: true }).thenNothing();
    spec
      .given([{ type: 'consent_granted', data: choice }])
      .when({ type: 'setConsent', ...choice, version: 'v2', granted: true })
      .then([{ type: 'consent_granted', data: { ...choice, version: 'v2' } }]);
  });
});

describe('a restriction of processing', () => {
  const spec = deciderSpecification(restrictionDecider);

  it('is applied with its reason, changed, and lifted', () => {
    spec.given([]).when({ type: 'setRestriction', userId, restricted: true, reason: 'r' }).then([{ type: 'processing_restriction.applied', data: { userId, reason: 'r' } }]);
    const applied = [{ type: 'processing_restriction.applied', data: { userId, reason: 'r' } }];
    spec.given(applied).when({ type: 'setRestriction', userId, restricted: true, reason: 'other' }).then([{ type: 'processing_restriction.applied', data: { userId, reason: 'other' } }]);
    spec.given(applied).when({ type: 'setRestriction', userId, restricted: false, reason: null }).then([{ type: 'processing_restriction.lifted', data: { userId } }]);
  });

  it('records nothing when nothing changes', () => {
    spec.given([]).when({ type: 'setRestriction', userId, restricted: false, reason: null }).thenNothing();
    spec.given([{ type: 'processing_restriction.applied', data: { userId, reason: null } }]).when({ type: 'setRestriction', userId, restricted: true, reason: null }).thenNothing();
  });
});
