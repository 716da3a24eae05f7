import { EVENT_TYPES } from '../messaging/events/event-sink';

const KNOWN: ReadonlySet<string> = new Set(EVENT_TYPES);

/** An `events` entry is a known name, `*`, or `x.*` where some known name starts with `x.`. */
export function isValidEventFilter(f: string): boolean {
  if (f === '*' || KNOWN.has(f)) return true;
  if (!f.endsWith('.*')) return false;
  const prefix = f.slice(0, -1);
  return EVENT_TYPES.some((t) => t.startsWith(prefix));
}

/** Whether an endpoint subscribed to `filters` receives `type`. */
export function matchesEvent(filters: readonly string[], type: string): boolean {
  for (const f of filters) {
    if (f === '*' || f === type) return true;
    if (f.endsWith('.*') && type.startsWith(f.slice(0, -1))) return true;
  }
  return false;
}
