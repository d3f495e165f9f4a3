import * as t from 'io-ts';
import { integer, refine } from '../formats/codecs';
import { PresetView, VersionView } from '../../projections/readmodel/readModel';
import { EventJson } from '../workspaceLog/eventJson';

/**
 * The answers of the API, as io-ts codecs: the OpenAPI document's schemas are generated from them
 * (src/http/openapi.ts), and the routes' answers are typed by them.
 */
const count = refine(t.number, (n) => Number.isSafeInteger(n) && n >= 0, 'count', { type: 'integer', minimum: 0 });

export const PresetAnswer = t.type({ data: PresetView }, 'PresetAnswer');
export const PresetList = t.type({ data: t.array(PresetView), total_count: count }, 'PresetList');
export const VersionAnswer = t.type({ data: VersionView }, 'VersionAnswer');
export const VersionList = t.type({ data: t.array(VersionView), total_count: count }, 'VersionList');

/** 202: the write happened, the read model has not shown it yet; poll `Location`. */
/** A write that happened while the read model had not caught up: poll `Location`. The version, when the write was about one. */
export const PendingWrite = t.type(
  {
    data: t.intersection([
      t.type({ preset_id: t.string, slug: t.string, status: t.literal('pending') }),
      t.partial({ version: integer, version_id: t.string }),
    ]),
  },
  'PendingWrite',
);
export type PendingWrite = t.TypeOf<typeof PendingWrite>;

export const PresetEventsPage = t.type({ data: t.array(EventJson), next_from: t.union([count, t.null]) }, 'PresetEventsPage');
/** Newest first (`direction=backwards`): next_before is the position to page on from, null at the start of the feed. */
export const EventsBackwardsPage = t.type(
  {
    data: t.array(EventJson),
    next_before: t.union([refine(t.string, (s) => /^\d+$/.test(s), 'event position', { pattern: '^\\d+$' }), t.null]),
  },
  'EventsBackwardsPage',
);
export const EventsPage = t.type(
  {
    data: t.array(EventJson),
    next_after: t.union([refine(t.string, (s) => /^\d+$/.test(s), 'event position', { pattern: '^\\d+$' }), t.null]),
  },
  'EventsPage',
);

export const HealthLive = t.type({ status: t.literal('ok') }, 'HealthLive');
export const HealthReady = t.type({ status: t.keyof({ ready: null, not_ready: null }), checks: t.UnknownRecord }, 'HealthReady');
