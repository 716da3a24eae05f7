import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type {
  OperationObject,
  PathItemObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ERROR_CODES, ErrorCode, OUTCOME_CODES } from '../errors';
import { REQUEST_ID_HEADER } from '../request-id';
import { ERROR_CODES_EXTENSION, STREAMED_BODY_EXTENSION } from './api-errors.decorator';
import { MULTIPART_EXTENSION } from './api-multipart.decorator';
import { propertyDefaultsIntoDescriptions } from './property-defaults';
import { pruneComponents } from './prune-components';

export interface OpenApiDocuments {
  /** The API an integrator calls with an API key (`/api/v2/...`): served at /docs. */
  public: OpenAPIObject;
  /** The operator API (admin token), health and metrics: served at /docs/admin. */
  operator: OpenAPIObject;
}

const TAGS: Record<string, string> = {
  messages: 'Send messages and read the message log',
  bulk: 'Bulk jobs: one request, many messages, paced in the background',
  templates: 'Message templates, header media and official senders',
  'sms-senders': 'SMS sender names and their review',
  verification: 'One-time verification codes',
  'chatapp-web': 'Chats of linked web sessions',
  webhooks: 'Where inbound chat messages are delivered, and the delivery log',
  account: 'The account of the calling API key',
  'api-keys': 'API keys of the account: create member keys, list, revoke',
  'test-mode': "Test keys only: play the provider, the contacts and the reviewers for the account's test mode",
  admin: 'Operator API: accounts, keys, balances, sender review, sandbox controls',
  health: 'Liveness and readiness probes',
  metrics: 'Prometheus metrics of a replica',
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;
const EXAMPLE_REQUEST_ID = 'msgreq_1732000000000_0k3x9a2000001';

/**
 * Codes every operation of its kind can give, whatever the route does: the guards, the throttler,
 * the body parser and the shutdown/database checks all run before (or around) the handler. The JSON
 * body parser runs on every method but GET and HEAD, whether or not the route reads a body, except
 * on routes that stream their body themselves (@ApiStreamedBody).
 */
export function commonErrorCodes(op: OperationObject, method: string): ErrorCode[] {
  const codes: ErrorCode[] = ['INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'];
  const schemes = new Set((op.security ?? []).flatMap((s) => Object.keys(s)));
  if (schemes.has('apiKey')) codes.push('UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMITED');
  // Operator routes are throttled per client IP (@AdminOnly includes @ThrottlePerIp).
  if (schemes.has('admin')) codes.push('UNAUTHORIZED', 'RATE_LIMITED');
  const parsed =
    method !== 'get' && method !== 'head' && !(op as { [STREAMED_BODY_EXTENSION]?: boolean })[STREAMED_BODY_EXTENSION];
  if (parsed) codes.push('INVALID_REQUEST_BODY', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE');
  return codes;
}

/** The public and operator documents, generated from the controllers, DTOs and ERROR_CODES. */
export function buildOpenApiDocuments(app: INestApplication, publicBaseUrl: string): OpenApiDocuments {
  const full = SwaggerModule.createDocument(app, baseConfig(publicBaseUrl).build());
  addSharedComponents(full);
  nullableRefs(full as unknown as Json);
  for (const item of Object.values(full.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (op) finishOperation(op, method);
    }
  }
  propertyDefaultsIntoDescriptions(full);
  return {
    public: partition(full, (path) => path.startsWith('/api/'), 'Messaging Service API'),
    operator: partition(full, (path) => !path.startsWith('/api/'), 'Messaging Service operator API'),
  };
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/**
 * `nullable: true` beside `allOf: [$ref]` (how Nest writes a nullable class property) does not allow
 * null in OpenAPI 3.0: the referenced object schema still refuses it. Say "the object or null" with
 * the 3.0 idiom for null instead, so validators and generated clients agree with the responses.
 */
function nullableRefs(node: Json): void {
  if (Array.isArray(node)) return node.forEach(nullableRefs);
  if (!node || typeof node !== 'object') return;
  for (const value of Object.values(node)) nullableRefs(value);
  const allOf = node.allOf;
  if (node.nullable === true && Array.isArray(allOf) && allOf.length === 1) {
    delete node.nullable;
    delete node.allOf;
    delete node.type;
    node.anyOf = [allOf[0], { type: 'object', nullable: true, enum: [null] }];
  }
}

function baseConfig(publicBaseUrl: string): DocumentBuilder {
  const table = Object.entries(ERROR_CODES)
    .map(([code, v]) => `| ${v.status} | \`${code}\` | ${v.description} |`)
    .join('\n');
  const outcomes = Object.entries(OUTCOME_CODES)
    .map(([code, v]) => `| \`${code}\` | ${v.description} |`)
    .join('\n');
  return new DocumentBuilder()
    .setTitle('Messaging Service API')
    .setVersion('2')
    .setDescription(
      'One API key sends SMS, chat-app, bot, email and verification messages. Amounts are integer minor units. ' +
        'Every error is `{ success:false, code, error, requestId }` (+ `retryAfterSeconds` on 429); each operation ' +
        'lists the codes it can answer with.\n\n| HTTP | code | meaning |\n|---|---|---|\n' +
        table +
        '\n\nA message, a bulk row or a bulk job that ended without success says why in its `errorCode`: one of the codes ' +
        "above (a row's validation code, the provider error that failed a message) or one of these outcome codes, which " +
        'are never an HTTP error.\n\n| code | meaning |\n|---|---|\n' +
        outcomes,
    )
    .setLicense('Proprietary (self-hosted licence)', `${publicBaseUrl}/docs`)
    .setContact('Messaging Service operators', `${publicBaseUrl}/docs`, '')
    .addServer(publicBaseUrl, 'This deployment (PUBLIC_BASE_URL)')
    .addApiKey(
      {
        type: 'apiKey',
        name: 'X-API-Key',
        in: 'header',
        description: 'An API key of the account (owner or member key).',
      },
      'apiKey',
    )
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'The operator token (ADMIN_TOKEN); not a JWT.' },
      'admin',
    )
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'The metrics token (METRICS_TOKEN), needed only when it is set.' },
      'metrics',
    );
}

function addSharedComponents(doc: OpenAPIObject): void {
  const components = (doc.components ??= {});
  components.schemas = {
    ...(components.schemas ?? {}),
    ErrorCode: {
      type: 'string',
      enum: Object.keys(ERROR_CODES),
      description: 'Every error code the API can answer with.',
    },
    ErrorEnvelope: {
      type: 'object',
      required: ['success', 'code', 'error', 'requestId'],
      properties: {
        success: { type: 'boolean', enum: [false] },
        code: { $ref: '#/components/schemas/ErrorCode' },
        error: { type: 'string', description: 'What went wrong, for a person; branch on `code`.' },
        requestId: {
          type: 'string',
          pattern: '^msgreq_\\d+_[0-9a-z]+$',
          description: 'Also in the X-Request-Id header.',
        },
        retryAfterSeconds: {
          type: 'integer',
          minimum: 0,
          description: 'On 429 only: seconds until a retry can succeed.',
        },
      },
    },
  };
  components.headers = {
    ...(components.headers ?? {}),
    [REQUEST_ID_HEADER]: {
      description: 'Identifies the request in the logs (same as `requestId` in error bodies).',
      schema: { type: 'string' },
    },
    'Retry-After': { description: 'Seconds until a retry can succeed.', schema: { type: 'integer', minimum: 0 } },
  };
}

/** Turns the route's error codes into typed error responses and adds the shared headers. */
function finishOperation(op: OperationObject, method: string): void {
  // Public routes (health) say so: no security, rather than an undefined one.
  op.security ??= [];
  const multipart = (op as OperationObject & { [MULTIPART_EXTENSION]?: SchemaObject })[MULTIPART_EXTENSION];
  if (multipart) {
    delete (op as OperationObject & { [MULTIPART_EXTENSION]?: SchemaObject })[MULTIPART_EXTENSION];
    const body = (op.requestBody ??= { required: true, content: {} }) as {
      content: Record<string, { schema?: SchemaObject }>;
    };
    body.content['multipart/form-data'] = { schema: multipart };
  }
  const ext = op as OperationObject & { [ERROR_CODES_EXTENSION]?: ErrorCode[] };
  const codes = new Set<ErrorCode>([...(ext[ERROR_CODES_EXTENSION] ?? []), ...commonErrorCodes(op, method)]);
  delete ext[ERROR_CODES_EXTENSION];
  delete (op as { [STREAMED_BODY_EXTENSION]?: boolean })[STREAMED_BODY_EXTENSION];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
    if (!codes.has(code)) continue;
    const status = ERROR_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    op.responses[String(status)] = errorResponse(status, list);
  }
  for (const response of Object.values(op.responses) as ResponseObject[]) {
    response.headers = {
      ...(response.headers ?? {}),
      [REQUEST_ID_HEADER]: { $ref: `#/components/headers/${REQUEST_ID_HEADER}` },
    };
  }
}

function errorResponse(status: number, codes: ErrorCode[]): ResponseObject {
  const schema: SchemaObject = {
    allOf: [
      { $ref: '#/components/schemas/ErrorEnvelope' },
      { type: 'object', properties: { code: { type: 'string', enum: codes } } },
    ],
  };
  const example: Record<string, unknown> = {
    success: false,
    code: codes[0],
    error: ERROR_CODES[codes[0]].description,
    requestId: EXAMPLE_REQUEST_ID,
  };
  if (status === 429) example.retryAfterSeconds = 30;
  return {
    description: codes.map((c) => `\`${c}\`: ${ERROR_CODES[c].description}`).join(' '),
    // 429 always carries Retry-After; 503 does when the database was busy (a lock wait, a lost connection).
    ...(status === 429 || status === 503
      ? { headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } }
      : {}),
    content: { 'application/json': { schema, example } },
  };
}

function partition(full: OpenAPIObject, keep: (path: string) => boolean, title: string): OpenAPIObject {
  const paths: Record<string, PathItemObject> = {};
  for (const [path, item] of Object.entries(full.paths)) if (keep(path)) paths[path] = item;
  const used = new Set<string>();
  for (const item of Object.values(paths))
    for (const method of METHODS) for (const t of item[method]?.tags ?? []) used.add(t);
  const doc: OpenAPIObject = {
    ...full,
    info: { ...full.info, title },
    paths,
    tags: [...used].sort().map((name) => ({ name, description: TAGS[name] ?? name })),
  };
  return pruneComponents(doc);
}
