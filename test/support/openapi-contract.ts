import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface Operation {
  operationId?: string;
  responses: Record<string, { content?: Record<string, { schema?: Json }> }>;
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components?: Record<string, Json>;
}
interface Route {
  doc: string;
  method: string;
  template: string;
  pattern: RegExp;
  literalSegments: number;
  op: Operation;
}

/**
 * Checks a response against the committed OpenAPI documents: the status must be listed for the
 * operation, its media type (when it has a body) listed for that status, and a JSON body must match
 * that status's schema. Routes no document describes (an
 * unknown path, /docs itself, provider hooks, a test-only controller) are not checked.
 */
export class OpenApiContract {
  private readonly routes: Route[] = [];
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(docs: Record<string, Doc>) {
    addFormats(this.ajv);
    this.ajv.addKeyword({ keyword: 'example' });
    for (const [name, doc] of Object.entries(docs)) {
      this.ajv.addSchema({ $id: name, components: rewriteRefs(doc.components ?? {}, name) } as object);
      for (const [template, item] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(item)) {
          const segments = template.split('/');
          const pattern = new RegExp(
            '^' + segments.map((s) => (/^\{.+\}$/.test(s) ? '[^/]+' : escapeRe(s))).join('/') + '/?$',
          );
          this.routes.push({
            doc: name,
            method: method.toUpperCase(),
            template,
            pattern,
            literalSegments: segments.filter((s) => !s.startsWith('{')).length,
            op,
          });
        }
      }
    }
    // A literal segment beats a parameter: /api/v2/messages/bulk before /api/v2/messages/{id}.
    this.routes.sort((a, b) => b.literalSegments - a.literalSegments);
  }

  /** The operations of one document, each able to tell whether `METHOD /path` is one of its calls. */
  operationsOf(doc: string): { name: string; matches: (call: string) => boolean }[] {
    return this.routes
      .filter((r) => r.doc === doc)
      .map((r) => ({
        name: `${r.method} ${r.template}`,
        matches: (call: string) => {
          const [method, path] = call.split(' ');
          return (
            method === r.method &&
            r.pattern.test(path) &&
            this.routes.find((x) => x.method === method && x.pattern.test(path)) === r
          );
        },
      }));
  }

  /** A description of what breaks the contract, or null. */
  check(method: string, url: string, status: number, contentType: string | undefined, body: unknown): string | null {
    const path = new URL(url, 'http://x').pathname;
    const route = this.routes.find((r) => r.method === method.toUpperCase() && r.pattern.test(path));
    if (!route) return null;
    const name = `${route.method} ${route.template} (${route.op.operationId ?? '?'})`;
    const response = route.op.responses[String(status)];
    if (!response)
      return `${name} answered ${status}, which the OpenAPI document does not list (it lists ${Object.keys(route.op.responses).join(', ')})`;
    if (!response.content) return null;
    // A body in a media type the operation does not list (CSV where JSON is documented, or the reverse).
    const media = contentType?.split(';')[0].trim().toLowerCase();
    // Documented media types may carry parameters (`text/plain; version=0.0.4`): compare the bare type.
    const listed = Object.keys(response.content).map((k) => k.split(';')[0].trim().toLowerCase());
    if (media && !listed.includes(media))
      return `${name} ${status} answered ${media}, which the OpenAPI document does not list (it lists ${Object.keys(response.content).join(', ')})`;
    // Only JSON bodies are checked against a schema (a text/csv body is a string by definition).
    if (!media?.includes('json')) return null;
    const schema = response.content['application/json']?.schema;
    if (!schema) return null;
    const key = `${route.doc} ${route.method} ${route.template} ${status}`;
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(rewriteRefs(schema, route.doc) as object);
      this.validators.set(key, validate);
    }
    if (validate(body)) return null;
    const errors = (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''}`)
      .join('; ');
    return `${name} ${status} body does not match the OpenAPI schema: ${errors}\nbody: ${JSON.stringify(body).slice(0, 600)}`;
  }
}

function rewriteRefs(node: Json, docId: string): Json {
  if (Array.isArray(node)) return node.map((n) => rewriteRefs(n, docId));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(node))
    out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${docId}${v}` : rewriteRefs(v, docId);
  return out;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function loadCommittedContract(): OpenApiContract {
  const dir = join(__dirname, '..', '..', 'openapi');
  const read = (f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Doc;
  return new OpenApiContract({ public: read('public.json'), admin: read('admin.json') });
}
