import { isValidEventFilter, matchesEvent } from './event-filter';

describe('event filters', () => {
  it('accepts known names, prefixes of known names and *', () => {
    for (const f of [
      'message.sent',
      'message.*',
      'bulk_job.*',
      'chatapp_web.*',
      'chatapp_web.message.*',
      '*',
      'webhook.test',
    ])
      expect(isValidEventFilter(f)).toBe(true);
    for (const f of ['message.unknown', 'nope.*', 'message', 'message.**', '', '.*', 'mess*'])
      expect(isValidEventFilter(f)).toBe(false);
  });

  it('matches exact names, prefixes and *', () => {
    expect(matchesEvent(['message.*'], 'message.sent')).toBe(true);
    expect(matchesEvent(['message.*'], 'bulk_job.queued')).toBe(false);
    expect(matchesEvent(['bulk_job.completed'], 'bulk_job.completed')).toBe(true);
    expect(matchesEvent(['bulk_job.completed'], 'bulk_job.queued')).toBe(false);
    expect(matchesEvent(['*'], 'sms.received')).toBe(true);
    expect(matchesEvent([], 'sms.received')).toBe(false);
  });
});
