import { ApiExtension } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

export const MULTIPART_EXTENSION = 'x-multipart-form';

/**
 * The `multipart/form-data` form of a route that also takes JSON: Nest's @ApiBody gives every media
 * type one schema, so the document builder places this one under multipart/form-data itself.
 */
export function ApiMultipartForm(schema: SchemaObject): MethodDecorator {
  return ApiExtension(MULTIPART_EXTENSION, schema) as MethodDecorator;
}
