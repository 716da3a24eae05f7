import { HttpAdapterHost } from '@nestjs/core';
import { createServer, Agent, request, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../config/app-config';
import { ShutdownCoordinator, ShutdownParticipant } from './shutdown-coordinator';

/** A loop whose work in flight ends when the test says so; records what shutdown asked of it. */
function participant(name: string, calls: string[]) {
  let finish!: () => void;
  const inFlight = new Promise<void>((resolve) => (finish = resolve));
  const p: ShutdownParticipant = {
    name,
    stopClaiming: () => calls.push(`${name}:stop`),
    drain: async () => {
      await inFlight;
      calls.push(`${name}:drained`);
    },
    releaseLeases: async () => {
      calls.push(`${name}:released`);
    },
  };
  return { p, finish };
}

function coordinator(graceMs: number, server?: Server): ShutdownCoordinator {
  const host = { httpAdapter: server ? { getHttpServer: () => server } : undefined } as unknown as HttpAdapterHost;
  return new ShutdownCoordinator(loadConfig({ SHUTDOWN_GRACE_MS: String(graceMs) }), host);
}

describe(ShutdownCoordinator.name, () => {
  it('stops every loop the moment shutdown begins, then releases leases only after their work drained', async () => {
    const calls: string[] = [];
    const a = participant('a', calls);
    const b = participant('b', calls);
    const sut = coordinator(5000);
    sut.register(a.p);
    sut.register(b.p);
    expect(sut.shuttingDown).toBe(false);

    const done = sut.shutdown('SIGTERM');
    expect(sut.shuttingDown).toBe(true);
    expect(calls).toEqual(['a:stop', 'b:stop']);
    b.finish();
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual(['a:stop', 'b:stop', 'b:drained', 'b:released']);
    a.finish();
    expect(await done).toBe(true);
    expect(calls.slice(4)).toEqual(['a:drained', 'a:released']);
    // Idempotent: a second call (the module's destroy hook after the signal handler) runs nothing again.
    expect(await sut.shutdown()).toBe(true);
    expect(calls).toHaveLength(6);
  });

  it('a loop registered after shutdown began is stopped at once', () => {
    const calls: string[] = [];
    const sut = coordinator(5000);
    sut.begin();
    sut.register(participant('late', calls).p);
    expect(calls).toEqual(['late:stop']);
  });

  it('at the end of the grace period a loop still busy keeps its leases (they expire as after a crash); the others are released', async () => {
    const calls: string[] = [];
    const stuck = participant('stuck', calls);
    const quick = participant('quick', calls);
    quick.finish();
    const sut = coordinator(50);
    sut.register(stuck.p);
    sut.register(quick.p);
    const started = Date.now();
    expect(await sut.shutdown()).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(calls).toEqual(['stuck:stop', 'quick:stop', 'quick:drained', 'quick:released']);
  });

  describe('HTTP server', () => {
    let server: Server;
    let agent: Agent;
    let port: number;
    /** Answers /slow after `slowMs`, anything else at once. */
    let slowMs = 0;
    const timers: NodeJS.Timeout[] = [];
    /** Resolves when the server has received a /slow request (so shutdown starts with it in progress). */
    let slowArrived: Promise<void>;
    let arrived: () => void;

    beforeEach(async () => {
      slowArrived = new Promise<void>((r) => (arrived = r));
      server = createServer((req, res) => {
        if (req.url === '/slow') arrived();
        timers.push(setTimeout(() => res.end('ok'), req.url === '/slow' ? slowMs : 0));
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      port = (server.address() as AddressInfo).port;
      agent = new Agent({ keepAlive: true });
    });
    afterEach(() => {
      timers.splice(0).forEach(clearTimeout);
      agent.destroy();
      server.closeAllConnections();
      server.close();
    });

    const get = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end();
      });

    it('lets a request in progress finish and closes idle keep-alive connections', async () => {
      expect(await get('/')).toBe(200); // leaves an idle keep-alive connection
      slowMs = 300;
      const slow = get('/slow');
      await slowArrived;
      const sut = coordinator(5000, server);
      const started = Date.now();
      expect(await sut.shutdown()).toBe(true);
      expect(await slow).toBe(200);
      expect(Date.now() - started).toBeLessThan(2000);
      expect(server.listening).toBe(false);
    });

    it('closes the connection of a request still open when the grace period ends', async () => {
      slowMs = 10_000;
      const slow = get('/slow').catch((err: NodeJS.ErrnoException) => err.code);
      await slowArrived;
      const sut = coordinator(100, server);
      expect(await sut.shutdown()).toBe(false);
      expect(await slow).toBe('ECONNRESET');
    });
  });
});
