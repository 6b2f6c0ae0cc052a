// The editorial review of each item (editorial_reviews): its status, reviewer, author, and the item
// version it was submitted and approved at (what editorialGate compares with the item).
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const editorialProjection = defineProjection({
  name: 'editorial',
  mode: 'inline',
  tables: ['editorial_reviews'],
  handlers: {
    editorial_transition: async (tx, event) => {
      const d = event.data;
      const submittedVersion = d.move === 'submit' ? d.itemVersion : null;
      const approvedVersion = d.move === 'approve' ? d.itemVersion : null;
      await tx.query(sql`
        INSERT INTO editorial_reviews (site_id, collection, item_id, status, reviewer_id, author_id, submitted_by, submitted_version,
                                       approved_version, last_reason, last_actor_id, updated_at)
        VALUES (${event.siteId}, ${d.collection}, ${d.itemId}, ${d.to}, ${d.reviewerId}, ${d.authorId},
                ${d.move === 'submit' ? d.actorId : null}, ${submittedVersion}::int, ${approvedVersion}::int, ${d.reason}, ${d.actorId}, ${event.recordedAt})
        ON CONFLICT (site_id, collection, item_id) DO UPDATE SET
          status = excluded.status,
          reviewer_id = excluded.reviewer_id,
          author_id = excluded.author_id,
          submitted_by = CASE WHEN ${d.move === 'submit'}::boolean THEN excluded.submitted_by ELSE editorial_reviews.submitted_by END,
          submitted_version = coalesce(excluded.submitted_version, editorial_reviews.submitted_version),
          approved_version = CASE WHEN ${d.to === 'approved'}::boolean THEN excluded.approved_version ELSE NULL END,
          last_reason = excluded.last_reason,
          last_actor_id = excluded.last_actor_id,
          updated_at = excluded.updated_at`);
    },
  },
});
