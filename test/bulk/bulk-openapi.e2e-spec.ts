import { createTestApp, TestApp } from '../support/app';

type Schema = Record<string, unknown> & {
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  $ref?: string;
};
interface Op {
  operationId?: string;
  summary?: string;
  parameters: { name: string; in: string; required?: boolean; schema: Schema }[];
  requestBody: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content: Record<string, { schema: Schema & { allOf: Schema[] } }> }>;
}
const codesOf = (op: Op, status: string): unknown =>
  op.responses[status]?.content['application/json'].schema.allOf[1].properties?.code.enum;

describe('Bulk routes in the OpenAPI document (e2e)', () => {
  let t: TestApp;
  let doc: { paths: Record<string, Record<string, Op>>; components: { schemas: Record<string, Schema> } };
  beforeAll(async () => {
    t = await createTestApp();
    doc = (await t.http().get('/docs-json')).body;
  });
  afterAll(async () => {
    await t.close();
  });
  const resolve = (s: Schema): Schema => (s.$ref ? doc.components.schemas[s.$ref.split('/').pop() as string] : s);

  it('every bulk operation has its camelCase id and a summary', () => {
    const ops = {
      'post /api/v2/messages/bulk': 'createBulkJob',
      'get /api/v2/messages/bulk': 'listBulkJobs',
      'get /api/v2/messages/bulk/{jobId}': 'getBulkJob',
      'get /api/v2/messages/bulk/{jobId}/rows': 'listBulkJobRows',
      'post /api/v2/messages/bulk/{jobId}/retry-failed': 'retryFailedBulkRows',
      'post /api/v2/messages/bulk/{jobId}/pause': 'pauseBulkJob',
      'post /api/v2/messages/bulk/{jobId}/resume': 'resumeBulkJob',
      'post /api/v2/messages/bulk/{jobId}/cancel': 'cancelBulkJob',
    };
    for (const [key, id] of Object.entries(ops)) {
      const [method, path] = key.split(' ');
      expect({ key, id: doc.paths[path][method].operationId, summary: typeof doc.paths[path][method].summary }).toEqual(
        { key, id, summary: 'string' },
      );
    }
  });

  it('the streamed POST body is described: messages of message objects, messagesPerSecond 1..10, the Idempotency-Key header, and its error codes', () => {
    const op = doc.paths['/api/v2/messages/bulk'].post;
    const body = resolve(op.requestBody.content['application/json'].schema);
    expect(body.required?.sort()).toEqual(['messages', 'messagesPerSecond']);
    expect(body.properties?.messagesPerSecond).toMatchObject({ type: 'integer', minimum: 1, maximum: 10 });
    expect(body.properties?.messages).toMatchObject({ type: 'array', minItems: 1 });
    const item = resolve(body.properties?.messages.items as Schema);
    expect(item.required?.sort()).toEqual(['channel', 'messageType']);
    expect(Object.keys(item.properties ?? {})).toEqual(
      expect.arrayContaining(['to', 'channel', 'messageType', 'content', 'template', 'chatId', 'conversationContext']),
    );
    expect(item.properties?.scheduleAt).toBeUndefined();
    expect(op.parameters).toContainEqual(
      expect.objectContaining({
        name: 'Idempotency-Key',
        in: 'header',
        required: true,
        schema: { type: 'string', minLength: 1, maxLength: 200 },
      }),
    );
    expect(codesOf(op, '400')).toEqual([
      'INVALID_REQUEST_BODY',
      'IDEMPOTENCY_KEY_REQUIRED',
      'IDEMPOTENCY_KEY_INVALID',
      'MESSAGES_PER_SECOND_INVALID',
      'MESSAGES_REQUIRED',
      'INVALID_MESSAGE',
    ]);
    expect(codesOf(op, '403')).toEqual(['FORBIDDEN', 'SUBSCRIPTION_INACTIVE']);
    expect(codesOf(op, '409')).toEqual(['IDEMPOTENCY_CONFLICT']);
    // The body parser never runs on the streamed route: no 413 (no size limit) and no 415.
    expect([op.responses['413'], op.responses['415']]).toEqual([undefined, undefined]);
    expect(op.responses['202'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/BulkJobAccepted',
    });
  });

  it('state changes list 404 JOB_NOT_FOUND and their own 409 / 402 codes', () => {
    const job = (action: string) => doc.paths[`/api/v2/messages/bulk/{jobId}/${action}`].post;
    for (const action of ['retry-failed', 'pause', 'resume', 'cancel'])
      expect({ action, codes: codesOf(job(action), '404') }).toEqual({ action, codes: ['JOB_NOT_FOUND'] });
    expect(codesOf(job('retry-failed'), '409')).toEqual(['NOTHING_TO_RETRY']);
    expect(codesOf(job('retry-failed'), '402')).toEqual(['INSUFFICIENT_BALANCE']);
    expect(codesOf(job('resume'), '402')).toEqual(['INSUFFICIENT_BALANCE']);
    for (const action of ['pause', 'resume', 'cancel'])
      expect(codesOf(job(action), '409')).toEqual(['INVALID_JOB_STATE']);
    expect(job('pause').responses['402']).toBeUndefined();
  });

  it('a POST without a body still runs the JSON parser: its 400 is documented (checked by the contract hook)', async () => {
    const res = await t
      .http()
      .post('/api/v2/messages/bulk/bulk_x/pause')
      .set('Content-Type', 'application/json')
      .send('{');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_REQUEST_BODY');
    expect(codesOf(doc.paths['/api/v2/messages/bulk/{jobId}/pause'].post, '400')).toEqual(['INVALID_REQUEST_BODY']);
  });

  it('list queries are typed integers and enums', () => {
    const param = (path: string, name: string) => doc.paths[path].get.parameters.find((p) => p.name === name)?.schema;
    expect(param('/api/v2/messages/bulk', 'limit')).toEqual({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
    expect(param('/api/v2/messages/bulk/{jobId}/rows', 'limit')).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      default: 100,
    });
    expect(param('/api/v2/messages/bulk/{jobId}/rows', 'status')).toEqual({
      type: 'string',
      enum: ['pending', 'sent', 'failed', 'cancelled', 'invalid'],
    });
  });
});
