import { Link } from 'wouter-preact';
import type { PresetEvent } from '../api/types';
import { describeEvent } from '../describe';
import { Time } from './Time';
import { Note } from './Note';

/**
 * A preset's history from its events, newest first: who, when, what, from which request format,
 * and the note given with the change. Each added version links to its diff with the one before.
 */
export const History = ({
  slug,
  events,
  more,
  onMore,
  busy,
}: {
  slug: string;
  events: PresetEvent[];
  more: boolean;
  onMore: () => void;
  busy: boolean;
}) => (
  <>
    <ol class="timeline" reversed start={events[0] ? events[0].revision + 1 : undefined}>
      {events.map((event) => {
        const d = describeEvent(event);
        return (
          <li key={event.id} data-type={event.type}>
            <div class="when muted">
              <Time iso={event.recorded_at} />
            </div>
            <p class="what">
              <strong>{event.metadata.actorUserId}</strong> {d.what}
              {d.format && <span class="muted"> {d.format}</span>}
            </p>
            {d.note && <Note text={d.note} />}
            {event.type === 'PresetVersionAdded' && d.version !== undefined && d.version > 1 && (
              <Link href={`/presets/${encodeURIComponent(slug)}/diff/${d.version - 1}/${d.version}`}>
                Compare version {d.version - 1} with version {d.version}
              </Link>
            )}
          </li>
        );
      })}
    </ol>
    {more && (
      <button type="button" class="secondary" onClick={onMore} aria-busy={busy} disabled={busy}>
        Show older events
      </button>
    )}
  </>
);
