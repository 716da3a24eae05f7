import { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

function smtpError(responseCode: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode });
}

/**
 * A real SMTP server (smtp-server package) whose answers depend on the recipient's local part:
 * `reject*` -> 550 at RCPT TO, `busy*` -> 451 at RCPT TO, `spam*` -> 554 after DATA, `hang*` -> DATA
 * never answered. `refuseConnections` answers every new connection with 421; `slowMs` delays every
 * accepted message's final answer (a slow provider).
 */
export class SmtpFake {
  readonly received: ReceivedMail[] = [];
  refuseConnections = false;
  slowMs = 0;
  private server: SMTPServer | null = null;

  constructor(private readonly credentials: { user: string; pass: string }) {}

  get port(): number {
    return (this.server!.server.address() as AddressInfo).port;
  }

  async start(): Promise<this> {
    this.server = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      closeTimeout: 100,
      logger: false,
      onConnect: (_session, cb) =>
        cb(this.refuseConnections ? smtpError(421, 'Too many connections, try later') : null),
      onAuth: (auth, _session, cb) =>
        auth.username === this.credentials.user && auth.password === this.credentials.pass
          ? cb(null, { user: auth.username })
          : cb(smtpError(535, 'Authentication failed')),
      onRcptTo: (address, _session, cb) => {
        if (address.address.startsWith('reject')) return cb(smtpError(550, 'No such user here'));
        if (address.address.startsWith('busy')) return cb(smtpError(451, 'Mailbox busy, try again later'));
        cb();
      },
      onData: (stream, session, cb) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const to = session.envelope.rcptTo.map((a) => a.address);
          if (to.some((a) => a.startsWith('hang'))) return; // never answer: the client must time out
          if (to.some((a) => a.startsWith('spam'))) return cb(smtpError(554, 'Message rejected as spam'));
          const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
          this.received.push({ from, to, raw: Buffer.concat(chunks).toString('utf8') });
          const n = this.received.length;
          if (this.slowMs > 0) setTimeout(() => cb(null, `OK queued as Q${n}`), this.slowMs);
          else cb(null, `OK queued as Q${n}`);
        });
      },
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
