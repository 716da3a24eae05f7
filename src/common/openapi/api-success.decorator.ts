import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

export interface ApiSuccessOptions {
  description: string;
  /** A complete response body as the route returns it (envelope included). */
  example: unknown;
  /** `data` is an array of `type`. */
  isArray?: boolean;
  /** The body is `type` itself, not `{ success: true, data: type }` (bulk job resources, health). */
  bare?: boolean;
}

/**
 * A typed success response. Most routes answer `{ success: true, data }`; the schema says so with a
 * `$ref` to the data class, so generated clients get a named type for it.
 */
export function ApiSuccess(status: number, type: Type<unknown>, opts: ApiSuccessOptions): MethodDecorator {
  const ref = { $ref: getSchemaPath(type) };
  const data = opts.isArray ? { type: 'array' as const, items: ref } : ref;
  const schema = opts.bare
    ? data
    : {
        type: 'object' as const,
        required: ['success', 'data'],
        properties: { success: { type: 'boolean' as const, enum: [true] }, data },
      };
  return applyDecorators(
    ApiExtraModels(type),
    ApiResponse({ status, description: opts.description, schema, example: opts.example }),
  ) as MethodDecorator;
}

export interface ApiFileSuccessOptions {
  description: string;
  /** The response's media type, e.g. `text/csv` (error responses stay JSON envelopes). */
  mediaType: string;
  /** A complete body as the route sends it. */
  example: string;
  /** Response headers the route sets (e.g. Content-Disposition). */
  headers?: Record<string, { description: string; schema: SchemaObject }>;
}

/**
 * A success response that is not JSON (a CSV export): one media type whose schema is a string, so a
 * generated client reads it as text (openapi-fetch: `parseAs: 'text'`).
 */
export function ApiFileSuccess(status: number, opts: ApiFileSuccessOptions): MethodDecorator {
  return ApiResponse({
    status,
    description: opts.description,
    content: { [opts.mediaType]: { schema: { type: 'string' }, example: opts.example } },
    ...(opts.headers ? { headers: opts.headers } : {}),
  }) as MethodDecorator;
}
