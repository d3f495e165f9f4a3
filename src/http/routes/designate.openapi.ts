import { movedOrProposed, WRITE_ERRORS, type Operation, type Schemas } from '../operations';
import { DesignateBody } from './designate';

/** The operation of ./designate.ts: designate a version (rollback). */
export const DESIGNATE_OPERATIONS: Operation[] = [
  {
    method: 'put',
    path: '/api/v1/presets/{slug}/designated-version',
    operationId: 'designatePresetVersion',
    tag: 'Presets',
    scope: 'presets:write',
    summary: 'Designate a version (rollback)',
    description:
      'Makes an existing version the designated one; the versions stay as they are. Designating the designated version stores nothing. ' +
      'Refused (409) while the preset is archived.',
    parameters: ['slug', 'If-Match', 'Preset-Note'],
    requestBody: 'DesignateRequest',
    answers: movedOrProposed('Designated'),
    errors: [...WRITE_ERRORS, '404'],
  },
];

export const DESIGNATE_SCHEMAS: Schemas = [['DesignateRequest', DesignateBody]];
