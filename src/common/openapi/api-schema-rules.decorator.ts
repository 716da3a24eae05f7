import { ApiSchema, ApiSchemaOptions } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

export type SchemaRules = Pick<SchemaObject, 'description' | 'additionalProperties' | 'allOf'>;

/**
 * Schema keywords a class's properties cannot say: `additionalProperties: false` where the code
 * refuses unknown fields, and `allOf`/`oneOf` rules for fields required only together with others
 * (content with free_text, to on non-chat channels). @nestjs/swagger copies every `ApiSchema` option
 * except `name` into the class's component schema (SchemaObjectFactory.getSchemaMetadata); its type
 * names only `description`, hence this typed wrapper.
 */
export function ApiSchemaRules(rules: SchemaRules): ClassDecorator {
  const options: ApiSchemaOptions = rules;
  return ApiSchema(options);
}
