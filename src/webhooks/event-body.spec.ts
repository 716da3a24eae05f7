import { eventBody, modeHeader } from './event-body';
import { accountIdOf } from '../common/account-id';

describe('event bodies and the webhook-mode header', () => {
  it('puts livemode beside the event fields, data last: true for a live account, false for its test twin', () => {
    const event = { type: 'message.sent', timestamp: '2026-11-22T10:15:30.000Z', data: { id: 'msg_1' } };
    expect(eventBody(accountIdOf('acc_1'), event)).toBe(
      '{"type":"message.sent","timestamp":"2026-11-22T10:15:30.000Z","livemode":true,"data":{"id":"msg_1"}}',
    );
    expect(JSON.parse(eventBody(accountIdOf('test_acc_1'), event))).toEqual({ ...event, livemode: false });
    // The spec's own bodies keep their `event` field.
    expect(
      JSON.parse(eventBody(accountIdOf('test_acc_1'), { event: 'webhook.test', timestamp: 't', data: {} })),
    ).toEqual({
      event: 'webhook.test',
      timestamp: 't',
      livemode: false,
      data: {},
    });
  });

  it('names the mode of the account in webhook-mode', () => {
    expect(modeHeader(accountIdOf('acc_1'))).toEqual({ 'webhook-mode': 'live' });
    expect(modeHeader(accountIdOf('test_acc_1'))).toEqual({ 'webhook-mode': 'test' });
  });
});
