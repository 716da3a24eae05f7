import { canonicalSubmitId, concatPart, parseDeliverSm, parseReceiptText, receiptMessageId } from './smpp-receipts';

const NOW = 1_760_000_000_000;
const receiptPdu = (text: string, extra: Record<string, unknown> = {}) => ({
  esm_class: 0x04,
  source_addr: '966501234567',
  destination_addr: 'MyShop',
  short_message: { message: text },
  ...extra,
});
const text = (id: string, stat: string, err = '000') =>
  `id:${id} sub:001 dlvrd:001 submit date:2611260915 done date:2611260916 stat:${stat} err:${err} text:Your code is 1234`;

describe(parseDeliverSm.name, () => {
  it.each([
    ['DELIVRD', 'delivered', null],
    ['UNDELIV', 'failed', 'UNDELIVERED'],
    ['EXPIRED', 'failed', 'EXPIRED'],
    ['REJECTD', 'failed', 'REJECTED_BY_CARRIER'],
    ['DELETED', 'failed', 'UNDELIVERED'],
    ['UNKNOWN', 'failed', 'UNDELIVERED'],
  ])('stat:%s -> %s %s', (stat, status, errorCode) => {
    expect(parseDeliverSm(receiptPdu(text('smsc-1', stat)), NOW, 'as_submitted')).toEqual({
      kind: 'receipt',
      receipt: {
        providerMessageId: 'smsc-1',
        status,
        providerStatus: stat,
        errorCode,
        providerErrorCode: status === 'failed' ? '000' : null,
        at: NOW,
      },
    });
  });

  it('keeps the SMSC error code of a failure', () => {
    const d = parseDeliverSm(receiptPdu(text('77', 'UNDELIV', '034')), NOW, 'as_submitted');
    expect(d).toMatchObject({ kind: 'receipt', receipt: { status: 'failed', providerErrorCode: '034' } });
  });

  it('ignores ENROUTE, ACCEPTD and SME acknowledgements', () => {
    expect(parseDeliverSm(receiptPdu(text('1', 'ENROUTE')), NOW, 'as_submitted').kind).toBe('ignored');
    expect(parseDeliverSm(receiptPdu(text('1', 'ACCEPTD')), NOW, 'as_submitted').kind).toBe('ignored');
    expect(parseDeliverSm({ ...receiptPdu(text('1', 'DELIVRD')), esm_class: 0x08 }, NOW, 'as_submitted').kind).toBe(
      'ignored',
    );
  });

  it('prefers the receipted_message_id and message_state TLVs, with the network error code', () => {
    const d = parseDeliverSm(
      receiptPdu('', { receipted_message_id: 'ABC123', message_state: 5, network_error_code: Buffer.from([3, 0, 21]) }),
      NOW,
      'as_submitted',
    );
    expect(d).toEqual({
      kind: 'receipt',
      receipt: {
        providerMessageId: 'ABC123',
        status: 'failed',
        providerStatus: 'UNDELIV',
        errorCode: 'UNDELIVERED',
        providerErrorCode: '3:21',
        at: NOW,
      },
    });
  });

  it('refuses a receipt without an id or with an unknown stat', () => {
    expect(parseDeliverSm(receiptPdu('stat:DELIVRD'), NOW, 'as_submitted').kind).toBe('invalid');
    expect(parseDeliverSm(receiptPdu(text('1', 'WHATEVER')), NOW, 'as_submitted').kind).toBe('invalid');
    expect(parseDeliverSm(receiptPdu(text('1', 'constructor')), NOW, 'as_submitted').kind).toBe('invalid');
  });

  it('a deliver_sm that is not a receipt is an inbound SMS (numbers as E.164)', () => {
    const d = parseDeliverSm(
      {
        esm_class: 0,
        source_addr: '966501234567',
        destination_addr: '966500000009',
        short_message: { message: 'STOP' },
      },
      NOW,
      'as_submitted',
    );
    expect(d).toEqual({
      kind: 'inbound',
      sms: { from: '+966501234567', to: '+966500000009', text: 'STOP', providerMessageId: null, at: NOW, part: null },
    });
    const payload = parseDeliverSm(
      {
        esm_class: 0,
        source_addr: '966501234567',
        destination_addr: 'MyShop',
        message_payload: { message: 'long reply' },
      },
      NOW,
      'as_submitted',
    );
    expect(payload).toMatchObject({ sms: { to: 'MyShop', text: 'long reply' } });
  });

  it('decimal mode: the hex submit id and the decimal receipt id meet', () => {
    const stored = canonicalSubmitId('0A1B2C', 'decimal');
    expect(stored).toBe(String(0x0a1b2c));
    const d = parseDeliverSm(receiptPdu(text(String(0x0a1b2c), 'DELIVRD')), NOW, 'decimal');
    expect(d).toMatchObject({ receipt: { providerMessageId: stored } });
    expect(receiptMessageId('0a1b2c', null, 'decimal')).toBe(stored);
    expect(receiptMessageId(null, '0000662316', 'decimal')).toBe(stored);
  });

  it('as_submitted keeps ids exactly (leading zeros, case)', () => {
    expect(canonicalSubmitId(' 00Ab12 ', 'as_submitted')).toBe('00Ab12');
    expect(receiptMessageId(null, '00Ab12', 'as_submitted')).toBe('00Ab12');
  });
});

describe(parseReceiptText.name, () => {
  it('reads the fields case-insensitively', () => {
    expect(
      parseReceiptText(
        'ID:abc SUB:001 DLVRD:001 SUBMIT DATE:2611260915 DONE DATE:2611260916 STAT:delivrd ERR:000 TEXT:x',
      ),
    ).toEqual({ id: 'abc', stat: 'DELIVRD', err: '000' });
  });
});

describe(concatPart.name, () => {
  const udh = (...ies: number[][]) => ({ short_message: { message: 'x', udh: ies.map((ie) => Buffer.from(ie)) } });

  it('reads the 8-bit and 16-bit reference IEs of the user data header', () => {
    expect(concatPart(udh([0x00, 3, 200, 3, 2]))).toEqual({ ref: 'u8:200', total: 3, seq: 2 });
    expect(concatPart(udh([0x08, 4, 0x9c, 0x40, 2, 1]))).toEqual({ ref: 'u16:40000', total: 2, seq: 1 });
    // Another IE first (a port number) does not hide the reference.
    expect(concatPart(udh([0x05, 4, 0, 1, 0, 2], [0x00, 3, 7, 2, 2]))).toEqual({ ref: 'u8:7', total: 2, seq: 2 });
  });

  it('reads the SAR TLVs', () => {
    expect(concatPart({ sar_msg_ref_num: 513, sar_total_segments: 4, sar_segment_seqnum: 4 })).toEqual({
      ref: 'sar:513',
      total: 4,
      seq: 4,
    });
  });

  it('is null for a whole SMS, a one-part set or an impossible sequence number', () => {
    expect(concatPart({ short_message: { message: 'hi' } })).toBeNull();
    expect(concatPart(udh([0x00, 3, 1, 1, 1]))).toBeNull();
    expect(concatPart(udh([0x00, 3, 1, 2, 3]))).toBeNull();
    expect(concatPart(udh([0x00, 3, 1, 2, 0]))).toBeNull();
    expect(concatPart({ sar_msg_ref_num: 1, sar_total_segments: 2 })).toBeNull();
  });
});
