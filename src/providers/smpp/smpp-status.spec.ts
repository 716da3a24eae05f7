import { ProviderError } from '../provider.types';
import { classifySubmitStatus, hexStatus } from './smpp-status';

describe(classifySubmitStatus.name, () => {
  const kindOf = (status: number) => {
    const v = classifySubmitStatus(status);
    return v instanceof ProviderError ? v.kind : v.status;
  };

  it.each([
    [0x58, 'rate_limited'], // ESME_RTHROTTLED
    [0x14, 'rate_limited'], // ESME_RMSGQFUL
    [0x08, 'unavailable'], // ESME_RSYSERR
    [0x64, 'unavailable'], // ESME_RX_T_APPN
    [0x04, 'unavailable'], // ESME_RINVBNDSTS
    [0x0b, 'rejected'], // ESME_RINVDSTADR
    [0x0a, 'rejected'], // ESME_RINVSRCADR
    [0x66, 'rejected'], // ESME_RX_R_APPN
    [0x45, 'failed'], // ESME_RSUBMITFAIL
    [0xff, 'failed'], // ESME_RUNKNOWNERR
  ])('status %i -> %s', (status, kind) => {
    expect(kindOf(status)).toBe(kind);
  });

  it('names the status in hex', () => {
    expect(hexStatus(0x58)).toBe('0x00000058');
    expect(classifySubmitStatus(0x0b)).toMatchObject({
      code: 'PROVIDER_REJECTED',
      message: expect.stringContaining('0x0000000b'),
    });
  });
});
