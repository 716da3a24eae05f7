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
  dataCoding: number;
  esmClass: number;
  /** The text came in message_payload (else short_message). */
  payload: boolean;
  /** The concatenation header's `ref total seq` (8-bit reference), when the part had one. */
  concat: { ref: number; total: number; seq: number } | null;
  /** The message id answered, if any. */
  messageId: string | null;
}

/** Options of a delivery receipt the fake sends (SMPP 3.4 Appendix B text, optional TLVs). */
export interface ReceiptOptions {
  err?: string;
  /** The id written in the text (default: the message id as given). */
  textId?: string;
  /** Also send receipted_message_id / message_state TLVs. */
  tlv?: { receiptedMessageId?: string; messageState?: number };
  /** Leave the text empty (TLV-only receipts). */
  noText?: boolean;
}

/**
 * An SMSC built with the `smpp` package. Answers depend on the destination's last four digits:
 * 1111 -> ESME_RINVDSTADR, 2222 -> ESME_RTHROTTLED, 3333 -> no answer, 4444 -> ESME_RSYSERR,
 * 5555 -> the SMSC drops the connection, 6666 -> parts after the first of a concatenated SMS throttled. `silentBind` leaves bind_transceiver unanswered.
 */
export class SmppFake {
  readonly submits: ReceivedSubmit[] = [];
  binds = 0;
  silentBind = false;
  /** Delay before each submit_sm_resp; `maxOutstanding` records the client's window use. */
  responseDelayMs = 0;
  maxOutstanding = 0;
  /** Sees every submit_sm PDU as it arrives (fields the `submits` record leaves out). */
  onSubmit: ((pdu: smpp.PDU) => void) | null = null;
  /** Answer submit_sm with hexadecimal message ids (`000A0001`...). */
  hexIds = false;
  /** Sends a receipt with this stat for each accepted submit_sm before its submit_sm_resp (fast SMSCs race like this). */
  receiptBeforeResponse: string | null = null;
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

  /**
   * The texts a handset would show: parts with a concatenation header joined by (destination,
   * reference) in `seq` order once all `total` arrived, other submits as they are; in arrival order.
   */
  reassembled(): string[] {
    const out: string[] = [];
    const groups = new Map<string, ReceivedSubmit[]>();
    for (const s of this.submits) {
      if (!s.concat) {
        out.push(s.text);
        continue;
      }
      const key = `${s.destination}/${s.concat.ref}`;
      const parts = groups.get(key) ?? [];
      if (!groups.has(key)) groups.set(key, parts);
      parts.push(s);
      if (parts.length === s.concat.total)
        out.push(
          [...parts]
            .sort((a, b) => a.concat!.seq - b.concat!.seq)
            .map((p) => p.text)
            .join(''),
        );
    }
    return out;
  }

  /** Drops every client connection (as an SMSC restart would). */
  dropAll(): void {
    for (const s of this.sessions) s.destroy();
  }

  async stop(): Promise<void> {
    this.dropAll();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** A delivery receipt for `messageId` with `stat` (DELIVRD, UNDELIV...), on the latest session; resolves with the deliver_sm_resp status. */
  receipt(messageId: string, stat: string, opts: ReceiptOptions = {}): Promise<number> {
    const text = `id:${opts.textId ?? messageId} sub:001 dlvrd:${stat === 'DELIVRD' ? '001' : '000'} submit date:2611260915 done date:2611260916 stat:${stat} err:${opts.err ?? '000'} text:Your code is`;
    const tlvs: Record<string, unknown> = {};
    if (opts.tlv?.receiptedMessageId) tlvs.receipted_message_id = opts.tlv.receiptedMessageId;
    if (opts.tlv?.messageState) tlvs.message_state = opts.tlv.messageState;
    return this.deliver({
      esm_class: 0x04,
      source_addr: '966501234567',
      destination_addr: 'MyShop',
      short_message: opts.noText ? '' : text,
      ...tlvs,
    });
  }

  /** An SMS from a phone to one of our numbers or sender names. */
  inboundSms(from: string, to: string, text: string): Promise<number> {
    return this.deliver({
      esm_class: 0,
      source_addr_ton: 1,
      source_addr: from,
      destination_addr: to,
      short_message: { message: text },
    });
  }

  /**
   * One part of a concatenated SMS from a phone: `u8` / `u16` put the reference in the user data
   * header (IEI 00 / 08, esm_class UDHI), `sar` in the sar_* TLVs. Non-GSM text goes as UCS-2.
   */
  inboundPart(
    from: string,
    to: string,
    text: string,
    part: { form: 'u8' | 'u16' | 'sar'; ref: number; total: number; seq: number },
  ): Promise<number> {
    const { form, ref, total, seq } = part;
    const udh =
      form === 'u8'
        ? Buffer.from([0x05, 0x00, 0x03, ref & 0xff, total, seq])
        : Buffer.from([0x06, 0x08, 0x04, (ref >> 8) & 0xff, ref & 0xff, total, seq]);
    const base = { source_addr_ton: 1, source_addr: from, destination_addr: to };
    if (form === 'sar')
      return this.deliver({
        ...base,
        esm_class: 0,
        short_message: { message: text },
        sar_msg_ref_num: ref,
        sar_total_segments: total,
        sar_segment_seqnum: seq,
      });
    return this.deliver({ ...base, esm_class: 0x40, short_message: { udh, message: text } });
  }

  /** Sends a deliver_sm on the latest session; resolves with the deliver_sm_resp command_status. */
  deliver(params: Record<string, unknown>, timeoutMs = 5000): Promise<number> {
    const session = [...this.sessions].at(-1);
    if (!session) return Promise.reject(new Error('no client session to deliver to'));
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no deliver_sm_resp')), timeoutMs);
      session.deliver_sm(params, (resp) => {
        clearTimeout(timer);
        resolve(resp.command_status);
      });
    });
  }

  /** `hexIds` and `receiptBeforeResponse` applied to a submit_sm_resp about to be sent. */
  private beforeResponse(response: smpp.PDU): Promise<unknown> {
    if (typeof response.message_id !== 'string' || !response.message_id) return Promise.resolve();
    const id = this.hexIds
      ? (0xa0000 + this.submits.length).toString(16).toUpperCase().padStart(8, '0')
      : response.message_id;
    response.message_id = id;
    return this.receiptBeforeResponse
      ? this.receipt(id, this.receiptBeforeResponse).catch(() => undefined)
      : Promise.resolve();
  }

  private accept(session: smpp.Session): void {
    this.sessions.add(session);
    session.on('submit_sm', (pdu: smpp.PDU) => this.onSubmit?.(pdu));
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
      // The smpp package decodes the text by data_coding (0: GSM 03.38 one septet per octet, 8: UCS-2)
      // and splits off the user data header when esm_class says there is one.
      const body = (pdu.message_payload ?? pdu.short_message) as { message?: string; udh?: Buffer[] } | undefined;
      const ie = body?.udh?.find((h) => h[0] === 0x00 && h[1] === 0x03);
      const submit: ReceivedSubmit = {
        destination,
        source: String(pdu.source_addr),
        sourceTon: Number(pdu.source_addr_ton),
        text: body?.message ?? '',
        clientRef: pdu.client_message_ref,
        userRef: pdu.user_message_reference,
        session: sessionNo,
        dataCoding: Number(pdu.data_coding),
        esmClass: Number(pdu.esm_class),
        payload: pdu.message_payload !== undefined,
        concat: ie ? { ref: ie[2], total: ie[3], seq: ie[4] } : null,
        messageId: null,
      };
      this.submits.push(submit);
      const suffix = destination.slice(-4);
      if (suffix === '3333') return void this.maxOutstanding++;
      if (suffix === '5555') return session.destroy();
      // 6666: every part after the first is refused as throttled.
      const laterPartThrottled = suffix === '6666' && submit.concat !== null && submit.concat.seq > 1;
      const status = laterPartThrottled
        ? smpp.ESME_RTHROTTLED
        : { '1111': smpp.ESME_RINVDSTADR, '2222': smpp.ESME_RTHROTTLED, '4444': smpp.ESME_RSYSERR }[suffix];
      if (!status) submit.messageId = `smsc-${this.submits.length}`;
      const response = pdu.response(status ? { command_status: status } : { message_id: submit.messageId });
      this.maxOutstanding = Math.max(this.maxOutstanding, ++this.outstanding);
      const early = this.beforeResponse(response);
      setTimeout(() => {
        void early.then(() => {
          this.outstanding--;
          session.send(response);
        });
      }, this.responseDelayMs);
    });
  }
}
