import { ApiError } from '../common/errors';
import type { ProviderFailure, SendOutcome, SendResult } from '../messaging/send-outcome';
import { pauseAfter, planRow } from './row-outcomes';

const result = (status: SendResult['status'], errorCode: SendResult['errorCode'] = null): SendResult => ({
  id: 'msg_1',
  to: '+966501234567',
  channel: 'local_sms',
  status,
  cost: 0,
  errorCode,
  providerMessageId: null,
  encoding: 'gsm7',
  segments: 1,
});

describe('bulk row outcomes', () => {
  it('maps each kind of outcome to what happens to its row', () => {
    const unavailable = new ApiError('PROVIDER_UNAVAILABLE', 'Provider unavailable: down') as ProviderFailure;
    const cases: [SendOutcome, unknown][] = [
      [
        { kind: 'sent', result: result('sent') },
        { kind: 'settle', outcome: { status: 'sent', code: null, message: null } },
      ],
      [
        { kind: 'failed', result: result('failed', 'PROVIDER_UNAVAILABLE'), error: unavailable },
        {
          kind: 'settle',
          outcome: { status: 'failed', code: 'PROVIDER_UNAVAILABLE', message: 'Provider unavailable: down' },
        },
      ],
      [
        { kind: 'failed', result: result('failed', 'PROVIDER_REJECTED'), error: null },
        {
          kind: 'settle',
          outcome: { status: 'failed', code: 'PROVIDER_REJECTED', message: 'The provider rejected the message' },
        },
      ],
      [
        { kind: 'failed', result: result('failed', 'DELIVERY_UNCONFIRMED'), error: null },
        {
          kind: 'settle',
          outcome: {
            status: 'failed',
            code: 'DELIVERY_UNCONFIRMED',
            message: expect.stringContaining('may have been delivered'),
          },
        },
      ],
      [
        { kind: 'settled_elsewhere', result: result('sent') },
        { kind: 'settle', outcome: { status: 'sent', code: null, message: null } },
      ],
      [{ kind: 'settled_elsewhere', result: result('queued') }, { kind: 'sending' }],
      [{ kind: 'not_attempted', reason: 'provider_stopped', paid: true }, { kind: 'sending' }],
      [{ kind: 'not_attempted', reason: 'insufficient_balance', paid: false }, { kind: 'pending' }],
    ];
    for (const [o, plan] of cases) expect(planRow(o)).toEqual(plan);
  });

  it('pauses for the first row that needs it: no balance until resumed, a rate limit until max(backoff, retry-after)', () => {
    const stopped: SendOutcome = { kind: 'not_attempted', reason: 'provider_stopped', paid: true };
    expect(pauseAfter([{ kind: 'sent', result: result('sent') }, stopped], 1000, 400)).toBeNull();
    expect(
      pauseAfter(
        [{ kind: 'not_attempted', reason: 'rate_limited', paid: true, retryAfterMs: 2000 }, stopped],
        1000,
        400,
      ),
    ).toEqual({ reason: 'provider_rate_limit', resumeAt: 3000 });
    expect(
      pauseAfter([{ kind: 'not_attempted', reason: 'rate_limited', paid: true, retryAfterMs: 0 }], 1000, 400),
    ).toEqual({ reason: 'provider_rate_limit', resumeAt: 1400 });
    expect(pauseAfter([{ kind: 'not_attempted', reason: 'insufficient_balance', paid: false }], 1000, 400)).toEqual({
      reason: 'insufficient_balance',
      resumeAt: null,
    });
  });
});
