import { json, type Operation, type Parameters } from '../operations';

/** The operations of ./docs.ts: the OpenAPI document and its reference page, which need no key. */
export const DOCS_OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/openapi.json',
    operationId: 'getOpenApiDocument',
    tag: 'Service',
    summary: 'This document',
    description: 'The OpenAPI 3.1 document of the service, generated from its codecs.',
    answers: {
      '200': {
        description: 'The document.',
        content: json({ type: 'object', description: 'An OpenAPI 3.1 document.' }),
        headers: ['ETag', 'Cache-Control'],
      },
      '304': { description: 'Not modified (If-None-Match named its ETag).', headers: ['ETag'] },
    },
    errors: ['500'],
  },
  {
    method: 'get',
    path: '/docs',
    operationId: 'getApiReference',
    tag: 'Service',
    summary: 'The API reference',
    description: 'A readable, interactive rendering of this document (Swagger UI, served by the service itself).',
    answers: { '200': { description: 'An HTML page.', content: { 'text/html': { type: 'string' } } } },
    errors: ['500'],
  },
  {
    method: 'get',
    path: '/docs/{asset}',
    operationId: 'getApiReferenceAsset',
    tag: 'Service',
    summary: "The API reference's scripts, style and icon",
    description: 'Files of the swagger-ui-dist package, served from the service.',
    parameters: ['asset'],
    answers: {
      '200': {
        description: 'The file.',
        content: {
          'application/javascript': { type: 'string' },
          'text/css': { type: 'string' },
          'image/png': { type: 'string', contentMediaType: 'image/png' },
        },
        headers: ['Cache-Control'],
      },
    },
    errors: ['404', '500'],
  },
];

export const DOCS_PARAMETERS: Parameters = {
  asset: {
    name: 'asset',
    in: 'path',
    required: true,
    schema: { type: 'string', enum: ['swagger-ui.css', 'swagger-ui-bundle.js', 'init.js', 'favicon-32x32.png'] },
  },
};
