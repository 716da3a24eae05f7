import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Server } from 'node:http';
import { AppConfig } from '../../config/app-config';

/** A background loop as shutdown sees it. */
export interface ShutdownParticipant {
  readonly name: string;
  /** Take no new work from now on (no tick, no claim). Synchronous: called the moment shutdown begins. */
  stopClaiming(): void;
  /** Resolves once the work in flight (provider calls, deliveries) has ended and its outcome is written. */
  drain(): Promise<void>;
  /**
   * Hands back every lease this replica still holds, so another replica takes the work over at once
   * instead of after expiry. Called only when `drain` finished in time: a call still in flight keeps
   * its lease, which then expires as after a crash.
   */
  releaseLeases?(): Promise<void>;
}

/** How often idle keep-alive connections are closed while the HTTP server drains. */
const IDLE_SWEEP_MS = 100;

/**
 * Clean shutdown of one replica, in this order: readiness answers 503 and every loop stops claiming
 * (at once); loops finish what is in flight and write its outcome; their leases are released; the
 * HTTP server stops accepting, lets requests in progress finish and closes keep-alive connections.
 * All of it within SHUTDOWN_GRACE_MS. Then Nest's own hooks close providers, the database and Redis.
 * Started by the signal handler (shutdown-signals.ts) or, for `app.close()`, by this module's destroy hook.
 */
@Injectable()
export class ShutdownCoordinator implements OnModuleDestroy {
  private readonly logger = new Logger(ShutdownCoordinator.name);
  private readonly participants = new Set<ShutdownParticipant>();
  private began = false;
  private done: Promise<boolean> | null = null;

  constructor(
    private readonly config: AppConfig,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  register(participant: ShutdownParticipant): void {
    this.participants.add(participant);
    if (this.began) participant.stopClaiming();
  }

  get shuttingDown(): boolean {
    return this.began;
  }

  /** Readiness off and no new work claimed, synchronously; idempotent. */
  begin(reason = 'shutdown'): void {
    if (this.began) return;
    this.began = true;
    this.logger.log(
      `shutting down (${reason}): readiness is off, no new work is claimed; waiting up to ${this.config.shutdown.graceMs} ms for work in flight`,
    );
    for (const p of this.participants) p.stopClaiming();
  }

  /** The whole sequence, once: resolves true when everything finished within the grace period. */
  shutdown(reason?: string): Promise<boolean> {
    this.begin(reason);
    this.done ??= this.run();
    return this.done;
  }

  async onModuleDestroy(): Promise<void> {
    await this.shutdown('application closing');
  }

  private async run(): Promise<boolean> {
    const deadline = Date.now() + this.config.shutdown.graceMs;
    const drained = await Promise.all([...this.participants].map((p) => this.drainOne(p, deadline)));
    const http = await this.closeHttp(deadline);
    const clean = http && drained.every(Boolean);
    this.logger.log(
      clean
        ? 'work in flight finished, leases released'
        : 'grace period over with work still in flight: its leases expire instead',
    );
    return clean;
  }

  private async drainOne(p: ShutdownParticipant, deadline: number): Promise<boolean> {
    const finished = await within(
      p.drain().then(
        () => true,
        (err: unknown) => {
          this.logger.error({ err }, `${p.name}: draining failed`);
          return false;
        },
      ),
      deadline,
    );
    if (!finished) {
      this.logger.warn(`${p.name}: still busy when the grace period ended; its leases are left to expire`);
      return false;
    }
    try {
      await p.releaseLeases?.();
      return true;
    } catch (err) {
      this.logger.error({ err }, `${p.name}: releasing leases failed; they expire instead`);
      return false;
    }
  }

  /**
   * Stops accepting connections, closes idle keep-alive ones (again as requests finish) and, at the
   * deadline, the rest. The requests in progress (a single send waiting on its provider) end first.
   */
  private async closeHttp(deadline: number): Promise<boolean> {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server?.listening) return true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    server.closeIdleConnections();
    try {
      if (
        await within(
          closed.then(() => true),
          deadline,
        )
      )
        return true;
      this.logger.warn('HTTP requests still open when the grace period ended: their connections are closed');
      server.closeAllConnections();
      await closed;
      return false;
    } finally {
      clearInterval(sweep);
    }
  }
}

/** `work`'s value, or false if the deadline passes first. */
async function within(work: Promise<boolean>, deadline: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>(
    (resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()))),
  );
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
