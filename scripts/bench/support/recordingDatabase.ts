// A database whose read transactions record every statement they send: how a bench gets the exact
// SQL the service builds for a request (to EXPLAIN it, or to time it alone).
import type { Database } from '../../../infra/postgres/database.ts';
import type { SqlQuery } from '../../../infra/postgres/sql.ts';

export function recordingDatabase(database: Database): { database: Database; recorded: SqlQuery[] } {
  const recorded: SqlQuery[] = [];
  const recording: Database = {
    ...database,
    withSiteReads: (site, work) =>
      database.withSiteReads(site, (tx) =>
        work({
          ...tx,
          query: async <Row extends object>(query: SqlQuery) => {
            recorded.push(query);
            return tx.query<Row>(query);
          },
        }),
      ),
  };
  return { database: recording, recorded };
}
