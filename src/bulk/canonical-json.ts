/**
 * JSON with object keys sorted at every level, so two bodies differing only in key order hash alike.
 * Iterative (an explicit stack instead of recursion): rows stored before the depth limit existed
 * may nest arbitrarily deep, and a replay must never overflow the call stack on them.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  // Work items: a value to write, or a literal (closing bracket, separator, key) to emit.
  const todo: ({ v: unknown } | string)[] = [{ v: value }];
  while (todo.length) {
    const item = todo.pop() as { v: unknown } | string;
    if (typeof item === 'string') {
      out.push(item);
      continue;
    }
    const v = item.v;
    if (v === null || typeof v !== 'object') {
      out.push(JSON.stringify(v) ?? 'null');
      continue;
    }
    if (Array.isArray(v)) {
      out.push('[');
      todo.push(']');
      for (let i = v.length - 1; i >= 0; i--) {
        todo.push({ v: v[i] });
        if (i) todo.push(',');
      }
      continue;
    }
    const obj = v as Record<string, unknown>;
    // Most bodies are written with a stable key order; sort only when needed.
    const keys = Object.keys(obj).filter((k) => obj[k] !== undefined);
    let sorted = true;
    for (let i = 1; i < keys.length; i++) if (keys[i - 1] > keys[i]) sorted = false;
    if (!sorted) keys.sort();
    out.push('{');
    todo.push('}');
    for (let i = keys.length - 1; i >= 0; i--)
      todo.push({ v: obj[keys[i]] }, (i ? ',' : '') + JSON.stringify(keys[i]) + ':');
  }
  return out.join('');
}
