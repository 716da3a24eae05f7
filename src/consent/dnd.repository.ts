import { Injectable } from '@nestjs/common';
import { decoders, inList, query, Query, Row, sql, SqlParam, numOrNull } from '../database/sql';
import { UnitOfWork } from '../database/unit-of-work';

/** The platform's do-not-disturb list (dnd_numbers, dnd_state), owned by the consent module. */
export interface DndState {
  activeGeneration: number;
  numbers: number;
  importedAt: number | null;
}

/** The one mapping of the dnd_state row. */
function toDndState(r: Row): DndState {
  return {
    activeGeneration: Number(r.active_generation ?? 0),
    numbers: Number(r.numbers ?? 0),
    importedAt: numOrNull(r.imported_at),
  };
}

/** A generation number selected `AS g` (null: none, e.g. `MIN` over no rows). */
interface GenerationRow {
  g: number | null;
}

function toGenerationRow(r: Row): GenerationRow {
  return { g: numOrNull(r.g) };
}

/** A listed number (E.164), as `SELECT number FROM dnd_numbers` returns it. */
const toDndNumber = (r: Row): string => String(r.number);

/**
 * The numbers among `numbers` on the list in force: primary-key reads of the active generation (the
 * plans test checks the index).
 */
export function dndLookup(numbers: readonly string[]): Query<string> {
  return query(
    toDndNumber,
    sql(
      `SELECT number FROM dnd_numbers WHERE generation = (SELECT active_generation FROM dnd_state WHERE id = 1) AND number IN (${inList(numbers.length)})`,
      ...numbers,
    ),
  );
}

@Injectable()
export class DndRepository {
  constructor(private readonly uow: UnitOfWork) {}

  async state(): Promise<DndState> {
    const rows = await this.uow.read(
      query(toDndState, sql('SELECT active_generation, numbers, imported_at FROM dnd_state WHERE id = 1')),
    );
    return rows[0] ?? { activeGeneration: 0, numbers: 0, importedAt: null };
  }

  /** Takes a fresh generation number for an import (two imports never share one). */
  async claimGeneration(): Promise<number> {
    return this.uow.transaction(async (tx) => {
      await tx.exec(sql('UPDATE dnd_state SET next_generation = next_generation + 1 WHERE id = 1'));
      const rows = await tx.read(
        query(toGenerationRow, sql('SELECT next_generation - 1 AS g FROM dnd_state WHERE id = 1')),
      );
      return Number(rows[0].g);
    });
  }

  /** Adds numbers (E.164) to a generation being imported; a number already in it is skipped. */
  async insert(generation: number, numbers: readonly string[]): Promise<void> {
    if (numbers.length === 0) return;
    const params: SqlParam[] = [];
    for (const n of numbers) params.push(generation, n);
    const values = numbers.map(() => '(?, ?)').join(', ');
    const text =
      this.uow.capabilities.upsert === 'on-conflict'
        ? `INSERT INTO dnd_numbers (generation, number) VALUES ${values} ON CONFLICT (generation, number) DO NOTHING`
        : `INSERT INTO dnd_numbers (generation, number) VALUES ${values} ON DUPLICATE KEY UPDATE number = number`;
    await this.uow.exec(sql(text, ...params));
  }

  async count(generation: number): Promise<number> {
    const rows = await this.uow.read(
      query(decoders.n, sql('SELECT COUNT(*) AS n FROM dnd_numbers WHERE generation = ?', generation)),
    );
    return rows[0] ?? 0;
  }

  /**
   * Makes `generation` the list in force, in one statement (a lookup sees the old list or the new
   * one, never a mix), unless a later import already did: true when this one did. Answers the
   * generation it replaced.
   */
  async activate(generation: number, numbers: number, at: number): Promise<{ activated: boolean; previous: number }> {
    return this.uow.transaction(async (tx) => {
      const before = await tx.read(
        query(toGenerationRow, sql('SELECT active_generation AS g FROM dnd_state WHERE id = 1')),
      );
      const n = await tx.exec(
        sql(
          'UPDATE dnd_state SET active_generation = ?, numbers = ?, imported_at = ? WHERE id = 1 AND active_generation < ?',
          generation,
          numbers,
          at,
          generation,
        ),
      );
      return { activated: n === 1, previous: Number(before[0].g) };
    });
  }

  /** Deletes up to `batch` numbers of a generation no longer in force: how many went (0: done). */
  async deleteSome(generation: number, batch: number): Promise<number> {
    const edge = await this.uow.read(
      query(
        toDndNumber,
        sql(
          `SELECT number FROM dnd_numbers WHERE generation = ? ORDER BY number LIMIT 1 OFFSET ${batch - 1}`,
          generation,
        ),
      ),
    );
    if (edge.length === 0) return this.uow.exec(sql('DELETE FROM dnd_numbers WHERE generation = ?', generation));
    return this.uow.exec(sql('DELETE FROM dnd_numbers WHERE generation = ? AND number <= ?', generation, edge[0]));
  }

  /** The oldest generation below `active` that still has rows (an old list, or an import that lost or died), or null. */
  async staleGeneration(active: number): Promise<number | null> {
    const rows = await this.uow.read(query(toGenerationRow, sql('SELECT MIN(generation) AS g FROM dnd_numbers')));
    const g = rows[0]?.g;
    return g === null || g === undefined || g >= active ? null : g;
  }

  /** The numbers among `numbers` on the list in force: one indexed read for many numbers. */
  async listed(numbers: readonly string[]): Promise<Set<string>> {
    if (numbers.length === 0) return new Set();
    return new Set(await this.uow.read(dndLookup(numbers)));
  }
}
