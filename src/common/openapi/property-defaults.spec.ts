import type { OpenAPIObject } from '@nestjs/swagger';
import { propertyDefaultsIntoDescriptions } from './property-defaults';

function doc(): OpenAPIObject {
  return {
    openapi: '3.0.0',
    info: { title: 't', version: '1' },
    paths: {
      '/things': {
        get: {
          parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', default: 50 } }],
          responses: {},
        },
        post: {
          requestBody: {
            content: {
              'multipart/form-data': {
                schema: { type: 'object', properties: { mode: { type: 'string', default: 'fast' } } },
              },
            },
          },
          responses: {},
        },
      },
    },
    components: {
      schemas: {
        SendDto: {
          type: 'object',
          required: ['to'],
          properties: {
            to: { type: 'string' },
            codeLength: { type: 'integer', default: 6, description: 'Digits in the code' },
            scope: { type: 'string', default: 'marketing', description: 'Who is refused.' },
            channel: { type: 'string', default: 'all' },
            entries: {
              type: 'array',
              items: { type: 'object', properties: { dryRun: { type: 'boolean', default: false } } },
            },
          },
        },
      },
    },
  };
}

describe(propertyDefaultsIntoDescriptions.name, () => {
  it("moves each property's default into its description, nested ones and inline bodies too", () => {
    const sut = doc();
    propertyDefaultsIntoDescriptions(sut);
    expect(sut.components?.schemas?.SendDto).toEqual({
      type: 'object',
      required: ['to'],
      properties: {
        to: { type: 'string' },
        codeLength: { type: 'integer', description: 'Digits in the code. Default: 6.' },
        scope: { type: 'string', description: 'Who is refused. Default: `marketing`.' },
        channel: { type: 'string', description: 'Default: `all`.' },
        entries: {
          type: 'array',
          items: { type: 'object', properties: { dryRun: { type: 'boolean', description: 'Default: false.' } } },
        },
      },
    });
    const body = sut.paths['/things'].post?.requestBody as { content: Record<string, { schema: unknown }> };
    expect(body.content['multipart/form-data'].schema).toEqual({
      type: 'object',
      properties: { mode: { type: 'string', description: 'Default: `fast`.' } },
    });
  });

  it('leaves a parameter its default: generated clients keep parameters optional', () => {
    const sut = doc();
    propertyDefaultsIntoDescriptions(sut);
    expect(sut.paths['/things'].get?.parameters).toEqual([
      { name: 'limit', in: 'query', schema: { type: 'integer', default: 50 } },
    ]);
  });
});
