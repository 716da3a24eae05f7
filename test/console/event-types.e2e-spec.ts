import { EVENT_TYPES as CONSOLE_EVENT_TYPES } from '../../console/src/api/event-types';
import { EVENT_TYPES } from '../../src/messaging/events/event-sink';

// The console's subscription form offers its own copy of the event types (it is built apart from the
// server): every type the server can send must be offered, and nothing else.
describe('Console: event types', () => {
  it("offers exactly the server's event types", () => {
    expect([...CONSOLE_EVENT_TYPES].sort()).toEqual([...EVENT_TYPES].sort());
  });
});
