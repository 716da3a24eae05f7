import { Logger } from '@nestjs/common';
import * as smpp from 'smpp';
import { ProviderError } from '../provider.types';
import { hexStatus } from './smpp-status';

export interface SmppLinkOptions {
  url: string;
  systemId: string;
  password: string;
  systemType: string;
  timeoutMs: number;
  enquireLinkMs: number;
  reconnectMaxMs: number;
  /** Outstanding requests allowed on the session (SMPP window). */
  window: number;
  /** Handles a deliver_sm (receipt or inbound SMS); resolves to the deliver_sm_resp status. */
  onDeliverSm?: (pdu: smpp.PDU) => Promise<number>;
  /** The form a submit_sm_resp message_id is kept in (so receipts, which may write it differently, meet it). */
  submitId?: (id: string) => string;
}

/**
 * One bound transceiver session to the SMSC, shared by every send. Binds lazily on first use,
 * answers the SMSC's enquire_link / deliver_sm / unbind, and after losing the session reconnects
 * in the background with backoff (a send arriving meanwhile starts a bind attempt itself).
 */
export class SmppLink {
  private readonly logger = new Logger('SmppLink');
  private bound: Promise<smpp.Session> | null = null;
  private session: smpp.Session | null = null;
  private readonly inflight = new Set<(err: ProviderError) => void>();
  private reconnectTimer: NodeJS.Timeout | null = null;
  private backoffMs: number;
  private active = 0;
  private readonly waiting: { resolve: () => void; timer: NodeJS.Timeout }[] = [];
  private stopped = false;

  constructor(private readonly opts: SmppLinkOptions) {
    this.backoffMs = Math.min(500, opts.reconnectMaxMs);
  }

  /** The bound session, binding first when there is none. Rejects with ProviderError('unavailable'). */
  acquire(): Promise<smpp.Session> {
    if (this.stopped) return Promise.reject(new ProviderError('unavailable', 'SMPP link is shut down'));
    if (!this.bound) {
      const attempt = this.bind();
      this.bound = attempt;
      attempt.catch(() => {
        if (this.bound === attempt) this.bound = null;
      });
    }
    return this.bound;
  }

  /**
   * Sends a request PDU and waits for its response. The whole call (window slot, bind, response)
   * shares one deadline, so nothing is written to the SMSC after the caller has been told it timed out.
   */
  async request(command: 'submit_sm', params: Record<string, unknown>): Promise<smpp.PDU> {
    const deadline = Date.now() + this.opts.timeoutMs;
    await this.takeSlot(deadline);
    try {
      const session = await beforeDeadline(this.acquire(), deadline, 'SMPP bind');
      return await this.exchange(session, command, params, deadline);
    } finally {
      this.releaseSlot();
    }
  }

  private exchange(
    session: smpp.Session,
    command: 'submit_sm',
    params: Record<string, unknown>,
    deadline: number,
  ): Promise<smpp.PDU> {
    return new Promise<smpp.PDU>((resolve, reject) => {
      // Too little of the budget left to expect an answer: do not write at all. A submit written a few
      // ms before the deadline would time out at once and be reported failed, while the SMSC may
      // still deliver it.
      if (deadline - Date.now() < minimumAttemptMs(this.opts.timeoutMs)) {
        return reject(
          new ProviderError(
            'unavailable',
            `SMPP ${command} not attempted: too little of the ${this.opts.timeoutMs} ms budget was left after waiting for the window or the bind`,
          ),
        );
      }
      const finish = (fn: () => void) => {
        clearTimeout(timer);
        this.inflight.delete(fail);
        fn();
      };
      const fail = (err: ProviderError) => finish(() => reject(err));
      const timer = setTimeout(
        () => fail(new ProviderError('unavailable', `SMSC did not answer ${command} within ${this.opts.timeoutMs} ms`)),
        Math.max(0, deadline - Date.now()),
      );
      this.inflight.add(fail);
      const written = session[command](params, (pdu) => finish(() => resolve(this.withKeptId(pdu))));
      if (!written) fail(new ProviderError('unavailable', 'SMPP session is not writable'));
    });
  }

  private withKeptId(pdu: smpp.PDU): smpp.PDU {
    if (this.opts.submitId && typeof pdu.message_id === 'string' && pdu.message_id)
      pdu.message_id = this.opts.submitId(pdu.message_id);
    return pdu;
  }

  /** At most `window` requests await their response at once (SMSCs refuse or throttle more). */
  private takeSlot(deadline: number): Promise<void> {
    if (this.active < this.opts.window) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        resolve: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(
          () => {
            this.waiting.splice(this.waiting.indexOf(waiter), 1);
            reject(
              new ProviderError(
                'unavailable',
                `SMPP window of ${this.opts.window} stayed full for ${this.opts.timeoutMs} ms`,
              ),
            );
          },
          Math.max(0, deadline - Date.now()),
        ),
      };
      this.waiting.push(waiter);
    });
  }

  private releaseSlot(): void {
    const next = this.waiting.shift();
    if (next) next.resolve();
    else this.active--;
  }

  /** Unbinds politely (bounded wait) and stops reconnecting. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const session = this.session;
    this.session = null;
    this.bound = null;
    if (!session) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => session.destroy(() => resolve()), Math.min(this.opts.timeoutMs, 2000));
      const sent = session.unbind({}, () => {
        clearTimeout(timer);
        session.close(() => resolve());
      });
      if (!sent) {
        clearTimeout(timer);
        session.destroy(() => resolve());
      }
    });
  }

  private bind(): Promise<smpp.Session> {
    return new Promise<smpp.Session>((resolve, reject) => {
      let answered = false;
      const session = smpp.connect({ url: this.opts.url, auto_enquire_link_period: this.opts.enquireLinkMs });
      const fail = (reason: string) => {
        if (answered) return;
        answered = true;
        clearTimeout(timer);
        session.destroy();
        reject(new ProviderError('unavailable', `SMPP bind to ${this.opts.url} failed: ${reason}`));
      };
      const timer = setTimeout(() => fail(`no bind response within ${this.opts.timeoutMs} ms`), this.opts.timeoutMs);
      session.on('error', (err: Error) => {
        fail(err.message);
        this.logger.warn(`SMPP session error: ${err.message}`);
      });
      session.on('close', () => {
        fail('connection closed');
        this.onClose(session);
      });
      session.on('enquire_link', (pdu: smpp.PDU) => session.send(pdu.response()));
      session.on('deliver_sm', (pdu: smpp.PDU) => void this.answerDeliverSm(session, pdu));
      session.on('unbind', (pdu: smpp.PDU) => {
        session.send(pdu.response());
        session.close();
      });
      session.on('connect', () => {
        const params = {
          system_id: this.opts.systemId,
          password: this.opts.password,
          system_type: this.opts.systemType,
        };
        session.bind_transceiver(params, (pdu) => {
          if (answered) return;
          if (pdu.command_status !== 0) return fail(`bind_transceiver_resp status ${hexStatus(pdu.command_status)}`);
          answered = true;
          clearTimeout(timer);
          this.session = session;
          this.backoffMs = Math.min(500, this.opts.reconnectMaxMs);
          this.logger.log(`SMPP bound to ${this.opts.url} as ${this.opts.systemId}`);
          resolve(session);
        });
      });
    });
  }

  /** Answers deliver_sm_resp only after the handler stored what it carried (or refused it). */
  private async answerDeliverSm(session: smpp.Session, pdu: smpp.PDU): Promise<void> {
    const status = this.opts.onDeliverSm ? await this.opts.onDeliverSm(pdu).catch(() => 0x64 /* ESME_RX_T_APPN */) : 0;
    session.send(pdu.response(status ? { command_status: status } : {}));
  }

  private onClose(session: smpp.Session): void {
    if (this.session !== session) return;
    this.session = null;
    this.bound = null;
    for (const fail of [...this.inflight])
      fail(new ProviderError('unavailable', 'SMPP session closed before the SMSC answered'));
    if (this.stopped) return;
    this.logger.warn(`SMPP session to ${this.opts.url} lost; reconnecting`);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.reconnectTimer) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.opts.reconnectMaxMs);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (this.stopped || this.bound) return;
      this.acquire().catch(() => this.scheduleReconnect());
    }, delay);
    this.reconnectTimer.unref();
  }
}

/** The least time left for a submit to be written: a quarter of the budget, at most 250 ms. */
export function minimumAttemptMs(timeoutMs: number): number {
  return Math.min(250, Math.floor(timeoutMs / 4));
}

function beforeDeadline<T>(p: Promise<T>, deadline: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ProviderError('unavailable', `${what} did not complete in time`)),
      Math.max(0, deadline - Date.now()),
    );
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
