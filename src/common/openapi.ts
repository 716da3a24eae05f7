import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ERROR_CODES } from './errors';

/** OpenAPI at /docs (UI) and /docs-json, with the error vocabulary generated from ERROR_CODES. */
export function buildOpenApi(app: INestApplication): OpenAPIObject {
  const codes = Object.entries(ERROR_CODES);
  const table = codes.map(([code, v]) => `| ${v.status} | \`${code}\` | ${v.description} |`).join('\n');
  const config = new DocumentBuilder()
    .setTitle('Messaging Service API')
    .setVersion('2')
    .setDescription(
      'One API key sends SMS, chat-app, bot, email and verification messages. Amounts are integer minor units. ' +
        'Every error is `{ success:false, code, error, requestId }` (+ `retryAfterSeconds` on 429).\n\n' +
        '| HTTP | code | meaning |\n|---|---|---|\n' + table,
    )
    .addApiKey({ type: 'apiKey', name: 'X-API-Key', in: 'header' }, 'apiKey')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' }, 'admin')
    .build();
  const doc = SwaggerModule.createDocument(app, config);
  doc.components = doc.components ?? {};
  doc.components.schemas = {
    ...(doc.components.schemas ?? {}),
    ErrorCode: { type: 'string', enum: codes.map(([c]) => c) },
    ErrorEnvelope: {
      type: 'object',
      required: ['success', 'code', 'error', 'requestId'],
      properties: {
        success: { type: 'boolean', enum: [false] },
        code: { $ref: '#/components/schemas/ErrorCode' },
        error: { type: 'string' },
        requestId: { type: 'string', pattern: '^msgreq_\\d+_[0-9a-z]+$' },
        retryAfterSeconds: { type: 'integer', description: 'On 429 only' },
      },
    },
  };
  return doc;
}

export function setupOpenApi(app: INestApplication): void {
  SwaggerModule.setup('docs', app, () => buildOpenApi(app), { jsonDocumentUrl: 'docs-json' });
}
