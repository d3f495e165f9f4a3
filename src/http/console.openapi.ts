import type { Operation, Parameters } from './operations';

/** The operations of ./console.ts: the web console's page and assets, which need no key. */
export const CONSOLE_OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/',
    operationId: 'getConsole',
    tag: 'Service',
    summary: 'The web console',
    description:
      "The console's page (it needs no key; every API call it makes does). 503 when the service was started without a built console.",
    answers: {
      '200': { description: 'An HTML page.', content: { 'text/html': { type: 'string' } }, headers: ['ETag', 'Cache-Control'] },
      '304': { description: 'Not modified.', headers: ['ETag'] },
    },
    errors: ['500', '503'],
  },
  {
    method: 'get',
    path: '/favicon.svg',
    operationId: 'getConsoleIcon',
    tag: 'Service',
    summary: "The web console's icon",
    description: 'An SVG image.',
    answers: {
      '200': { description: 'The icon.', content: { 'image/svg+xml': { type: 'string' } }, headers: ['ETag', 'Cache-Control'] },
      '304': { description: 'Not modified.', headers: ['ETag'] },
    },
    errors: ['500'],
  },
  {
    method: 'get',
    path: '/assets/{file}',
    operationId: 'getConsoleAsset',
    tag: 'Service',
    summary: "The web console's scripts and styles",
    description: "Files the console's build wrote, named by content hash (cached for a year).",
    parameters: ['consoleFile'],
    answers: {
      '200': {
        description: 'The file.',
        content: { 'text/javascript': { type: 'string' }, 'text/css': { type: 'string' } },
        headers: ['ETag', 'Cache-Control'],
      },
      '304': { description: 'Not modified.', headers: ['ETag'] },
    },
    errors: ['404', '500'],
  },
];

export const CONSOLE_PARAMETERS: Parameters = {
  consoleFile: { name: 'file', in: 'path', required: true, description: "A file of the console's build.", schema: { type: 'string' } },
};
