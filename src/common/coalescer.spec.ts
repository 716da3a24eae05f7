import { Coalescer, LEFT_OUT, RetryWithout } from './coalescer';

/** A coalescer over numbers that records the batches it wrote (one way to write: `batch`). */
function batchOnly(impl: (reqs: number[]) => Promise<(number | typeof LEFT_OUT)[]>, alone?: () => boolean) {
  const batches: number[][] = [];
  const sut = new Coalescer<number, number>({
    batch: (reqs) => {
      batches.push(reqs);
      return impl(reqs);
    },
    weight: (r) => Math.abs(r) || 1,
    maxWeight: 10,
    maxInFlight: 1,
    alone,
  });
  return { sut, batches };
}

const times10 = async (reqs: number[]) => reqs.map((r) => r * 10);

describe(Coalescer.name, () => {
  it('writes requests made in the same turn as one batch, in order, each getting its own answer', async () => {
    const { sut, batches } = batchOnly(times10);
    await expect(Promise.all([sut.submit(1), sut.submit(2), sut.submit(3)])).resolves.toEqual([10, 20, 30]);
    expect(batches).toEqual([[1, 2, 3]]);
    expect(sut.stats).toEqual({ requests: 3, batches: 1 });
  });

  it('queues requests while a batch is in flight and writes them together next, splitting by weight', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { sut, batches } = batchOnly(async (reqs) => {
      if (reqs.includes(0)) await held;
      return reqs.map((r) => r * 10);
    });
    const first = sut.submit(0);
    await new Promise((r) => setImmediate(r));
    expect(batches).toEqual([[0]]);
    const later = [6, 3, 2, 5].map((r) => sut.submit(r));
    await new Promise((r) => setImmediate(r));
    expect(batches).toEqual([[0]]);
    release();
    await expect(first).resolves.toBe(0);
    await expect(Promise.all(later)).resolves.toEqual([60, 30, 20, 50]);
    // 6 + 3 fit in a weight of 10; 2 + 5 go in the next batch.
    expect(batches).toEqual([[0], [6, 3], [2, 5]]);
  });

  it('writes a request at once as a batch of one while `alone()` says so (its caller holds an open unit)', async () => {
    let inUnit = true;
    const { sut, batches } = batchOnly(times10, () => inUnit);
    await expect(Promise.all([sut.submit(1), sut.submit(2)])).resolves.toEqual([10, 20]);
    expect(batches).toEqual([[1], [2]]);
    expect(sut.stats).toEqual({ requests: 0, batches: 0 });
    inUnit = false;
    await expect(sut.submit(3)).resolves.toBe(30);
    expect(sut.stats).toEqual({ requests: 1, batches: 1 });
  });

  it('writes a lone request as a batch of one', async () => {
    const { sut, batches } = batchOnly(async (reqs) => reqs.map((r) => r * 10));
    await expect(sut.submit(4)).resolves.toBe(40);
    expect(batches).toEqual([[4]]);
  });

  it('writes the batch again without the requests that lost a conflict, then each of those alone', async () => {
    const { sut, batches } = batchOnly(async (reqs) => {
      const lost = reqs.flatMap((r, i) => (r === 2 || r === 4 ? [i] : []));
      if (reqs.length > 1 && lost.length) throw new RetryWithout(lost, 'settled elsewhere');
      return reqs.map((r) => r * 10);
    });
    await expect(Promise.all([1, 2, 3, 4].map((r) => sut.submit(r)))).resolves.toEqual([10, 20, 30, 40]);
    expect(batches).toEqual([[1, 2, 3, 4], [1, 3], [2], [4]]);
  });

  it('writes each request of a batch that failed as a whole in a batch of its own; only those that fail alone fail', async () => {
    const { sut, batches } = batchOnly(async (reqs) => {
      if (reqs.length > 1) throw new Error('deadlock');
      if (reqs[0] < 0) throw new Error(`refused ${reqs[0]}`);
      return [reqs[0] * 10];
    });
    const results = await Promise.allSettled([sut.submit(1), sut.submit(-2), sut.submit(3)]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : String(r.reason)))).toEqual([
      10,
      'Error: refused -2',
      30,
    ]);
    expect(batches).toEqual([[1, -2, 3], [1], [-2], [3]]);
  });

  it('writes a request the batch left out in a batch of its own, and refuses a batch of one that leaves it out', async () => {
    const { sut, batches } = batchOnly(async (reqs) =>
      reqs.map((r) => (r === 2 && reqs.length > 1 ? LEFT_OUT : r === 5 ? LEFT_OUT : r * 10)),
    );
    await expect(Promise.all([sut.submit(1), sut.submit(2)])).resolves.toEqual([10, 20]);
    expect(batches).toEqual([[1, 2], [2]]);
    await expect(sut.submit(5)).rejects.toThrow('A batch of one left its request out');
  });
});
