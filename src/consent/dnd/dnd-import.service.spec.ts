import { FakeClock } from '../../common/fake-clock';
import { ApiError } from '../../common/errors';
import { loadConfig } from '../../config/app-config';
import type { DndRepository, DndState } from '../dnd.repository';
import { DndImportService } from './dnd-import.service';

/** The repository's contract in memory: generations of numbers and the one state row. */
class MemoryDnd {
  rows = new Map<number, Set<string>>();
  st = { active: 0, next: 1, numbers: 0, importedAt: null as number | null };
  /** Runs after each insert (a concurrent import finishing in the middle of this one). */
  onInsert: () => Promise<void> = async () => undefined;

  async state(): Promise<DndState> {
    return { activeGeneration: this.st.active, numbers: this.st.numbers, importedAt: this.st.importedAt };
  }
  async claimGeneration(): Promise<number> {
    return this.st.next++;
  }
  async insert(generation: number, numbers: readonly string[]): Promise<void> {
    const set = this.rows.get(generation) ?? new Set<string>();
    for (const n of numbers) set.add(n);
    this.rows.set(generation, set);
    await this.onInsert();
  }
  async count(generation: number): Promise<number> {
    return this.rows.get(generation)?.size ?? 0;
  }
  async activate(generation: number, numbers: number, at: number) {
    const previous = this.st.active;
    if (previous >= generation) return { activated: false, previous };
    Object.assign(this.st, { active: generation, numbers, importedAt: at });
    return { activated: true, previous };
  }
  async deleteSome(generation: number): Promise<number> {
    const n = this.rows.get(generation)?.size ?? 0;
    this.rows.delete(generation);
    return n;
  }
  async staleGeneration(active: number): Promise<number | null> {
    const old = [...this.rows.keys()].filter((g) => g < active);
    return old.length ? Math.min(...old) : null;
  }
}

async function* chunks(...parts: string[]): AsyncGenerator<string> {
  for (const p of parts) yield p;
}

describe(DndImportService.name, () => {
  let repo: MemoryDnd;
  let sut: DndImportService;
  const config = loadConfig({ DEFAULT_REGION: 'SA' });
  beforeEach(() => {
    repo = new MemoryDnd();
    sut = new DndImportService(repo as unknown as DndRepository, new FakeClock(), config);
  });
  const whole = () => true;

  it('normalises the numbers, skips the header, counts invalid lines and makes the list the one in force', async () => {
    const res = await sut.import(chunks('number\n+9665012', '34567\n0501234568\nbad\n966501234567\n'), whole);
    expect(res).toMatchObject({ numbers: 2, invalid: 1, invalidLines: [4], generation: 1 });
    expect([...(repo.rows.get(1) ?? [])].sort()).toEqual(['+966501234567', '+966501234568']);
    expect(await sut.state()).toMatchObject({ numbers: 2, generation: 1 });
  });

  it('deletes the replaced list and anything older once the new one is in force', async () => {
    await sut.import(chunks('+966501234567\n'), whole);
    repo.rows.set(0, new Set(['+966500000000'])); // left by an import that died
    await sut.import(chunks('+966501234568\n'), whole);
    expect([...repo.rows.keys()]).toEqual([2]);
  });

  it('a body cut short, or one without a valid number, is not applied and leaves nothing behind', async () => {
    await sut.import(chunks('+966501234567\n'), whole);
    await expect(sut.import(chunks('+966501234568\n'), () => false)).rejects.toMatchObject({
      code: 'INVALID_REQUEST_BODY',
    });
    async function* broken(): AsyncGenerator<string> {
      yield '+966501234569\n';
      throw new Error('aborted');
    }
    await expect(sut.import(broken(), whole)).rejects.toMatchObject({ code: 'INVALID_REQUEST_BODY' });
    await expect(sut.import(chunks('x\n1\n'), whole)).rejects.toBeInstanceOf(ApiError);
    expect(repo.st).toMatchObject({ active: 1, numbers: 1 });
    expect([...repo.rows.keys()]).toEqual([1]);
  });

  it('a failed write is not blamed on the body: the error goes on as it is and the list stays', async () => {
    await sut.import(chunks('+966501234567\n'), whole);
    repo.onInsert = async () => {
      throw new Error('database gone');
    };
    await expect(sut.import(chunks('+966501234568\n'), whole)).rejects.toThrow('database gone');
    expect(repo.st).toMatchObject({ active: 1, numbers: 1 });
    expect([...repo.rows.keys()]).toEqual([1]);
  });

  it('an import overtaken by one started later is answered CONFLICT, not applied, and its rows are deleted', async () => {
    repo.onInsert = async () => {
      repo.onInsert = async () => undefined;
      await sut.import(chunks('+966501234568\n'), whole); // started later (generation 2), finishes first
    };
    await expect(sut.import(chunks('+966501234567\n'), whole)).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(repo.st).toMatchObject({ active: 2, numbers: 1 });
    expect([...repo.rows.keys()]).toEqual([2]);
  });
});
