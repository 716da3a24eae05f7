import { Injectable } from '@nestjs/common';
import { query, Row, sql, str } from '../../database/sql';
import { UnitOfWork } from '../../database/unit-of-work';

/** The one mapping of a privacy_leases row read before taking it: its holder (null: free). */
const toLeaseOwner = (r: Row): string | null => str(r.owner);

/**
 * The lease of a privacy loop (one row per loop in privacy_leases): a replica works only while it holds
 * it. Taken by one conditional UPDATE where it is free, expired or already ours; renewed the same way.
 */
@Injectable()
export class PurgeLeaseRepository {
  constructor(private readonly uow: UnitOfWork) {}

  /** Takes or renews the lease until `until`; `taken`: false when another replica holds it. `takeover`: it was another's, expired. */
  async acquire(
    name: string,
    owner: string,
    now: number,
    until: number,
  ): Promise<{ taken: boolean; takeover: boolean }> {
    return this.uow.transaction(async (tx) => {
      const before = await tx.read(
        query(toLeaseOwner, sql('SELECT owner, expires_at FROM privacy_leases WHERE name = ?', name)),
      );
      const changed = await tx.exec(
        sql(
          'UPDATE privacy_leases SET owner = ?, expires_at = ? WHERE name = ? AND (owner IS NULL OR owner = ? OR expires_at < ?)',
          owner,
          until,
          name,
          owner,
          now,
        ),
      );
      const prev = before[0] ?? null;
      return { taken: changed === 1, takeover: changed === 1 && prev !== null && prev !== owner };
    });
  }

  async release(name: string, owner: string): Promise<void> {
    await this.uow.run(
      sql('UPDATE privacy_leases SET owner = NULL, expires_at = NULL WHERE name = ? AND owner = ?', name, owner),
    );
  }
}
