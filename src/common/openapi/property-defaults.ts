import type { OpenAPIObject } from '@nestjs/swagger';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Node = { [k: string]: Json };

const SUBSCHEMAS = ['items', 'additionalProperties', 'not'] as const;
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf'] as const;

/**
 * Moves the `default` of every object property into its description ("Default: 6."), so that only
 * `required` says whether a property may be left out. openapi-typescript's default options
 * (`defaultNonNullable`) type a property that has a default as always present: a client generated
 * from /docs-json would otherwise demand `codeLength` on POST /api/v2/verification/send. Parameters
 * keep theirs: the generator leaves them optional, and Swagger UI fills the value in.
 */
export function propertyDefaultsIntoDescriptions(doc: OpenAPIObject): void {
  const root = doc as unknown as Node;
  const schemas = isNode(root.components) ? root.components.schemas : undefined;
  if (isNode(schemas)) Object.values(schemas).forEach(visit);
  for (const item of isNode(root.paths) ? Object.values(root.paths) : []) {
    for (const op of isNode(item) ? Object.values(item) : []) {
      if (!isNode(op)) continue;
      const bodies = [op.requestBody, ...(isNode(op.responses) ? Object.values(op.responses) : [])];
      for (const body of bodies) {
        if (!isNode(body) || !isNode(body.content)) continue;
        for (const media of Object.values(body.content)) if (isNode(media)) visit(media.schema);
      }
    }
  }
}

function visit(schema: Json | undefined): void {
  if (!isNode(schema)) return;
  if (isNode(schema.properties)) {
    for (const property of Object.values(schema.properties)) {
      if (isNode(property) && property.default !== undefined) moveDefault(property);
      visit(property);
    }
  }
  for (const key of SUBSCHEMAS) visit(schema[key]);
  for (const key of SUBSCHEMA_LISTS) {
    const list = schema[key];
    if (Array.isArray(list)) list.forEach(visit);
  }
}

function moveDefault(property: Node): void {
  const value = property.default;
  delete property.default;
  const shown = typeof value === 'number' || typeof value === 'boolean' ? String(value) : `\`${stringify(value)}\``;
  const text = typeof property.description === 'string' ? property.description.trim() : '';
  const separator = !text ? '' : /[.!?]$/.test(text) ? ' ' : '. ';
  property.description = `${text}${separator}Default: ${shown}.`;
}

function stringify(value: Json): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function isNode(value: Json | undefined): value is Node {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}
