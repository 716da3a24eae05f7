import { ProviderError, ProviderOutcome } from '../provider.types';

// SMPP 3.4 command_status values (section 5.1.3) we tell apart.
const THROTTLED = new Set([0x58 /* ESME_RTHROTTLED */, 0x14 /* ESME_RMSGQFUL */]);
const TEMPORARY = new Set([0x04 /* ESME_RINVBNDSTS */, 0x08 /* ESME_RSYSERR */, 0x64 /* ESME_RX_T_APPN */]);
/** Refusals that settle this message for good (destination, sender or content not acceptable). */
const PERMANENT = new Set([
  0x01 /* ESME_RINVMSGLEN */, 0x0a /* ESME_RINVSRCADR */, 0x0b /* ESME_RINVDSTADR */, 0x33 /* ESME_RINVNUMDESTS */,
  0x48 /* ESME_RINVSRCTON */, 0x50 /* ESME_RINVDSTTON */, 0x51 /* ESME_RINVDSTNPI */, 0x65 /* ESME_RX_P_APPN */,
  0x66 /* ESME_RX_R_APPN */, 0xfe /* ESME_RDELIVERYFAILURE */, 0x101 /* ESME_RPROHIBITED */,
]);

export function hexStatus(status: number): string {
  return `0x${status.toString(16).padStart(8, '0')}`;
}

/**
 * A non-zero submit_sm_resp status: throttling -> rate_limited, SMSC trouble -> unavailable, a
 * permanent refusal of this message -> rejected, anything else -> failed (PROVIDER_ERROR).
 */
export function classifySubmitStatus(status: number): Extract<ProviderOutcome, { status: 'rejected' }> | ProviderError {
  const label = `submit_sm_resp status ${hexStatus(status)}`;
  if (THROTTLED.has(status)) return new ProviderError('rate_limited', `SMSC throttled the submission (${label})`);
  if (TEMPORARY.has(status))
    return new ProviderError('unavailable', `SMSC could not take the submission now (${label})`);
  if (PERMANENT.has(status))
    return { status: 'rejected', code: 'PROVIDER_REJECTED', message: `SMSC refused the message (${label})` };
  return new ProviderError('failed', `SMSC error (${label})`);
}
