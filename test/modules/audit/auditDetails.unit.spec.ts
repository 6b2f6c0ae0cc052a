// The declared details of each audited action (domain/shared/auditEvents.ts): an allowlist that
// never names a key holding a personal value, and derived details that carry names and counts only.
import { describe, expect, it } from 'vitest';
import { AUDIT_DETAILS, auditDetailsOf } from '../../../domain/shared/auditEvents.ts';
import { z } from 'zod';
import { EVENT_TYPES, eventCatalogue, type DomainEvent, type EventType } from '../../../domain/shared/eventCatalogue.ts';

/** Keys whose values are personal or free text in some event of the catalogue. */
const PERSONAL_KEYS = ['email', 'firstName', 'lastName', 'avatar', 'ip', 'userAgent', 'reason', 'passwordHash', 'keyHash', 'tokenHash', 'refreshTokenHash',
  'previousTokenHash', 'subjectHash', 'emailHash', 'externalId', 'endpoint', 'keys', 'url', 'secretCiphertext', 'name', 'title', 'body', 'description',
  'filename', 'slug', 'value', 'source', 'message', 'snapshot', 'delta', 'data', 'changes', 'draft', 'layoutConfig', 'prefix', 'recordIds', 'config', 'dsl'];

describe('the audit details catalogue', () => {
  it('declares every event type of the catalogue', () => {
    expect(Object.keys(AUDIT_DETAILS).sort()).toEqual([...EVENT_TYPES].sort());
  });

  it('never copies a key that holds a personal value or free text (an enum of the schema, a session’s revoke reason say, is neither)', () => {
    for (const [type, declaration] of Object.entries(AUDIT_DETAILS)) {
      if (typeof declaration === 'function') continue;
      const shape = (eventCatalogue[type as EventType] as z.ZodObject).shape;
      const copied = declaration as readonly string[];
      expect(copied.filter((key) => PERSONAL_KEYS.includes(key) && !(shape[key] instanceof z.ZodEnum)), type).toEqual([]);
      // A copied key names a scalar of the event (the type says so too).
      expect(copied.filter((key) => !(key in shape)), type).toEqual([]);
    }
  });

  it('copies only the declared keys, leaving absent ones out', () => {
    const event = { type: 'session.started', data: { sessionId: 's1', userId: 'u1', refreshTokenHash: 'h', expiresAt: 'x', userAgent: 'Firefox', ip: '10.0.0.1' } } as DomainEvent;
    expect(auditDetailsOf(event)).toEqual({ sessionId: 's1', userId: 'u1' });
  });

  it('derives names and counts, never values', () => {
    const updated = { type: 'user.updated', data: { userId: 'u1', changes: { email: 'jane@example.com', lastName: 'Doe', status: 'suspended' } } } as DomainEvent;
    expect(auditDetailsOf(updated)).toEqual({ userId: 'u1', changed: ['email', 'lastName', 'status'], status: 'suspended' });
    const item = { type: 'item.updated', data: { collection: 'patients', itemId: 'p1', snapshot: {}, delta: { email: 'jane@example.com' } } } as unknown as DomainEvent;
    expect(auditDetailsOf(item)).toEqual({ collection: 'patients', itemId: 'p1', changedFields: ['email'] });
    const erased = { type: 'data_erased', data: { erasureId: 'e1', collection: 'patients', subjectHash: 'abc', recordCount: 2, recordIds: ['p1', 'p2'], shreddedValues: 4 } } as DomainEvent;
    expect(auditDetailsOf(erased)).toEqual({ erasureId: 'e1', collection: 'patients', recordCount: 2, shreddedValues: 4 });
    const failed = { type: 'auth.sign_in_failed', data: { emailHash: 'abc', reason: 'unknown_email' } } as DomainEvent;
    expect(auditDetailsOf(failed)).toEqual({ reason: 'unknown_email', failures: 1 });
  });
});
