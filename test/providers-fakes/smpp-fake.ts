import { AddressInfo } from 'node:net';
import * as smpp from 'smpp';

export interface ReceivedSubmit {
  destination: string;
  source: string;
  sourceTon: number;
  text: string;
  clientRef: unknown;
  userRef: unknown;
  session: number;
}

/**
 * An SMSC built with the `smpp` package. Answers depend on the destination's last four digits:
 * 1111 -> ESME_RINVDSTADR, 2222 -> ESME_RTHROTTLED, 3333 -> no answer, 4444 -> ESME_RSYSERR,
 * 5555 -> the SMSC drops the connection. `silentBind` leaves bind_transceiver unanswered.
 */
export class SmppFake {
  readonly submits: ReceivedSubmit[] = [];
  binds = 0;
  silentBind = false;
  /** Delay before each submit_sm_resp; `maxOutstanding` records the client's window use. */
  responseDelayMs = 0;
  maxOutstanding = 0;
  private outstanding = 0;
  private server: smpp.Server | null = null;
  private readonly sessions = new Set<smpp.Session>();

  constructor(private readonly credentials: { systemId: string; password: string }) {}

  get url(): string {
    return `smpp://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  get openSessions(): number {
    return this.sessions.size;
  }

  async start(): Promise<this> {
    this.server = smpp.createServer({}, (session) => this.accept(session));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    return this;
  }

  /** Drops every client connection (as an SMSC restart would). */
  dropAll(): void {
    for (const s of this.sessions) s.destroy();
  }

  async stop(): Promise<void> {
    this.dropAll();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(session: smpp.Session): void {
    this.sessions.add(session);
    const sessionNo = ++this.binds;
    session.on('close', () => this.sessions.delete(session));
    session.on('error', () => undefined);
    session.on('bind_transceiver', (pdu: smpp.PDU) => {
      if (this.silentBind) return;
      const ok = pdu.system_id === this.credentials.systemId && pdu.password === this.credentials.password;
      session.send(pdu.response(ok ? {} : { command_status: smpp.ESME_RBINDFAIL }));
    });
    session.on('enquire_link', (pdu: smpp.PDU) => session.send(pdu.response()));
    session.on('unbind', (pdu: smpp.PDU) => {
      session.send(pdu.response());
      session.close();
    });
    session.on('submit_sm', (pdu: smpp.PDU) => {
      const destination = String(pdu.destination_addr);
      const body = (pdu.message_payload ?? pdu.short_message) as { message?: string } | undefined;
      this.submits.push({
        destination,
        source: String(pdu.source_addr),
        sourceTon: Number(pdu.source_addr_ton),
        text: body?.message ?? '',
        clientRef: pdu.client_message_ref,
        userRef: pdu.user_message_reference,
        session: sessionNo,
      });
      const suffix = destination.slice(-4);
      if (suffix === '3333') return void this.maxOutstanding++;
      if (suffix === '5555') return session.destroy();
      const status = { '1111': smpp.ESME_RINVDSTADR, '2222': smpp.ESME_RTHROTTLED, '4444': smpp.ESME_RSYSERR }[suffix];
      const response = pdu.response(status ? { command_status: status } : { message_id: `smsc-${this.submits.length}` });
      this.maxOutstanding = Math.max(this.maxOutstanding, ++this.outstanding);
      setTimeout(() => {
        this.outstanding--;
        session.send(response);
      }, this.responseDelayMs);
    });
  }
}
