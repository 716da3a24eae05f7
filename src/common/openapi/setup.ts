import { INestApplication } from '@nestjs/common';
import { SwaggerModule } from '@nestjs/swagger';
import { buildOpenApiDocuments, OpenApiDocuments } from './document';

/**
 * The public document at /docs (JSON: /docs-json) and the operator document at /docs/admin
 * (JSON: /docs/admin-json). Built once, on first use, from the same code as the committed
 * `openapi/*.json` (a contract test keeps the two identical).
 */
export function setupOpenApi(app: INestApplication, publicBaseUrl: string): void {
  let docs: OpenApiDocuments | undefined;
  const get = (): OpenApiDocuments => (docs ??= buildOpenApiDocuments(app, publicBaseUrl));
  // The longer prefix first: /docs would otherwise serve its UI assets for /docs/admin too.
  SwaggerModule.setup('docs/admin', app, () => get().operator, {
    jsonDocumentUrl: 'docs/admin-json',
    yamlDocumentUrl: 'docs/admin-yaml',
  });
  SwaggerModule.setup('docs', app, () => get().public, { jsonDocumentUrl: 'docs-json', yamlDocumentUrl: 'docs-yaml' });
}
