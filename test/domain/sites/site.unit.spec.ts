import { describe, it } from 'vitest';
import { siteDecider } from '../../../domain/sites/site.ts';
import { deciderSpecification } from '../deciderSpecification.ts';

const spec = deciderSpecification(siteDecider);
const now = new Date('2026-01-02T03:04:05.678Z');
const created = { type: 'site.created', data: { siteId: 'acme', name: 'Acme', createdAt: '2026-01-01T00:00:00.000Z' } };
const deleted = { type: 'site.deleted', data: { siteId: 'acme', deletedAt: '2026-01-01T12:00:00.000Z' } };

describe('site decider', () => {
  it('creates a site that does not exist, with the time it was given', () => {
    spec
      .given([])
      .when({ type: 'createSite', siteId: 'acme', name: 'Acme', now })
      .then([{ type: 'site.created', data: { siteId: 'acme', name: 'Acme', createdAt: '2026-01-02T03:04:05.678Z' } }]);
  });

  it('refuses to create a site twice with 409 CONFLICT on the id', () => {
    spec.given([created]).when({ type: 'createSite', siteId: 'acme', name: 'Again', now }).thenThrows('CONFLICT', 409, ['id']);
  });

  it('never reuses the id of a deleted site', () => {
    spec.given([created, deleted]).when({ type: 'createSite', siteId: 'acme', name: 'Again', now }).thenThrows('CONFLICT', 409, ['id']);
  });

  it.each(['A', 'Acme', 'has space', '-leading', 'x', 'a'.repeat(64), 'dot.ted', 'slash/ed'])('refuses the malformed site id %j', (siteId) => {
    spec.given([]).when({ type: 'createSite', siteId, name: 'Bad', now }).thenThrows('VALIDATION_FAILED', 400, ['id']);
  });

  it('deletes an active site', () => {
    spec
      .given([created])
      .when({ type: 'deleteSite', siteId: 'acme', now })
      .then([{ type: 'site.deleted', data: { siteId: 'acme', deletedAt: '2026-01-02T03:04:05.678Z' } }]);
  });

  it('answers SITE_NOT_FOUND when deleting a site that does not exist or is already deleted', () => {
    spec.given([]).when({ type: 'deleteSite', siteId: 'acme', now }).thenThrows('SITE_NOT_FOUND', 404);
    spec.given([created, deleted]).when({ type: 'deleteSite', siteId: 'acme', now }).thenThrows('SITE_NOT_FOUND', 404);
  });
});
