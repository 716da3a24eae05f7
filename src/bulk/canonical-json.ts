/** JSON with object keys sorted at every level, so two bodies differing only in key order hash alike. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + canonicalJson(value[i]);
    return out + ']';
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  // Most bodies are written with a stable key order; sort only when needed.
  let sorted = true;
  for (let i = 1; i < keys.length; i++) if (keys[i - 1] > keys[i]) sorted = false;
  if (!sorted) keys.sort();
  let out = '{';
  let first = true;
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    out += (first ? '' : ',') + JSON.stringify(k) + ':' + canonicalJson(v);
    first = false;
  }
  return out + '}';
}
