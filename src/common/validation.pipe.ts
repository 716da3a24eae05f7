import { ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiError } from './errors';

function flatten(errors: ValidationError[], parent = ''): string[] {
  const out: string[] = [];
  for (const e of errors) {
    const path = parent ? `${parent}.${e.property}` : e.property;
    if (e.constraints) {
      for (const msg of Object.values(e.constraints)) {
        // class-validator writes "property x should not exist" / "name must be ..." with the leaf
        // name only; prefix the full path so nested fields are unambiguous.
        out.push(parent && msg.startsWith(e.property) ? `${parent}.${msg}` : msg);
      }
    }
    if (e.children?.length) out.push(...flatten(e.children, path));
  }
  return out;
}

/** Global pipe: DTO failures become 400 VALIDATION_ERROR with readable, field-named messages. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    exceptionFactory: (errors) => ApiError.validation(flatten(errors).join('; ') || 'Invalid request'),
  });
}
