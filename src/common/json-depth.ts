/**
 * Deepest nesting accepted in any JSON body (the root object or array is level 1). Deeper input
 * makes recursive consumers (class-transformer, the validation pipe, canonical JSON) overflow the
 * stack, and no legitimate request comes close.
 */
export const MAX_JSON_DEPTH = 32;

export function tooDeepMessage(max = MAX_JSON_DEPTH): string {
  return `The body is nested deeper than ${max} levels`;
}

/** True when `value` nests objects/arrays deeper than `max`. Iterative: safe for any parsed input. */
export function exceedsJsonDepth(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: { v: unknown; d: number }[] = [{ v: value, d: 1 }];
  while (stack.length) {
    const { v, d } = stack.pop() as { v: unknown; d: number };
    if (v === null || typeof v !== 'object') continue;
    if (d > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v as Record<string, unknown>)) {
      if (child !== null && typeof child === 'object') stack.push({ v: child, d: d + 1 });
    }
  }
  return false;
}
