import type { OpenAPIObject } from '@nestjs/swagger';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/**
 * Keeps only the components a document's paths reach (transitively) and the security schemes its
 * operations use, so each of the two documents carries nothing of the other's.
 */
export function pruneComponents(doc: OpenAPIObject): OpenAPIObject {
  const all = (doc.components ?? {}) as Record<string, Record<string, Json>>;
  const reached = new Map<string, Set<string>>();
  const queue: Json[] = [doc.paths as unknown as Json];
  const visit = (node: Json): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/')) {
        const [, , kind, name] = v.split('/');
        const seen = reached.get(kind) ?? new Set<string>();
        reached.set(kind, seen);
        if (!seen.has(name) && all[kind]?.[name] !== undefined) {
          seen.add(name);
          queue.push(all[kind][name]);
        }
      } else visit(v);
    }
  };
  while (queue.length) visit(queue.pop()!);

  const schemes = new Set<string>();
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item) as { security?: Record<string, string[]>[] }[]) {
      for (const s of op?.security ?? []) for (const name of Object.keys(s)) schemes.add(name);
    }
  }
  const components: Record<string, Record<string, Json>> = {};
  for (const [kind, entries] of Object.entries(all)) {
    const keep = kind === 'securitySchemes' ? schemes : (reached.get(kind) ?? new Set<string>());
    const kept = Object.fromEntries(
      Object.entries(entries)
        .filter(([name]) => keep.has(name))
        .sort(([a], [b]) => a.localeCompare(b)),
    );
    if (Object.keys(kept).length) components[kind] = kept;
  }
  return { ...doc, components: components as OpenAPIObject['components'] };
}
