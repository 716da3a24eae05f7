import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';

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
  return applyDecorators(ApiExtraModels(type), ApiResponse({ status, description: opts.description, schema, example: opts.example })) as MethodDecorator;
}
