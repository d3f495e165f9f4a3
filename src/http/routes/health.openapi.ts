import { json, type Operation, type Schemas } from '../operations';
import { HealthLive, HealthReady } from '../schemas';

/** The operations of the health routes (healthRoutes in ../app.ts), which need no key. */
export const HEALTH_OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/health/live',
    operationId: 'getLiveness',
    tag: 'Service',
    summary: 'Liveness',
    description: 'The process answers.',
    answers: { '200': { description: 'Alive.', content: json('HealthLive') } },
    errors: ['500'],
  },
  {
    method: 'get',
    path: '/health/ready',
    operationId: 'getReadiness',
    tag: 'Service',
    summary: 'Readiness',
    description: 'Ready once the read model has caught up with the events stored before the start and the projector runs.',
    answers: {
      '200': { description: 'Ready.', content: json('HealthReady') },
      '503': { description: 'Not ready (yet).', content: json('HealthReady') },
    },
    errors: ['500'],
  },
];

export const HEALTH_SCHEMAS: Schemas = [
  ['HealthLive', HealthLive],
  ['HealthReady', HealthReady],
];
