import { useCallback, useEffect, useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { ApiFailure } from '../api/client';
import { EVENT_TYPES, type PresetEvent } from '../api/types';
import { describeEvent, slugOfStream } from '../describe';
import { Failure } from '../components/Failure';
import { useLiveEvents } from '../components/LiveProvider';
import { Time } from '../components/Time';
import { Note } from '../components/Note';
import { usePageTitle } from '../hooks/usePageTitle';
import { useSession } from '../hooks/useSession';

const PAGE = 50;

interface Feed {
  events: PresetEvent[];
  /** Where the next older page starts; null at the first event. */
  older: string | number | null;
}

/**
 * The workspace's events, newest first, filtered by type and by preset, with new ones added live.
 * The workspace feed is read backwards by position; one preset's, backwards by revision.
 */
export const EventsPage = () => {
  const { call } = useSession();
  const heading = usePageTitle('Events');
  const [type, setType] = useState('');
  const [presetInput, setPresetInput] = useState('');
  const [preset, setPreset] = useState('');
  const [feed, setFeed] = useState<Feed>({ events: [], older: null });
  const [failure, setFailure] = useState<ApiFailure>();
  const [busy, setBusy] = useState(false);

  /** One page older than `older` (the newest page when undefined). */
  const page = useCallback(
    async (older: string | number | undefined): Promise<Feed> => {
      if (!preset) {
        const params = new URLSearchParams({ direction: 'backwards', limit: String(PAGE) });
        if (older !== undefined) params.set('before', String(older));
        if (type) params.set('type', type);
        const body = (await call<{ data: PresetEvent[]; next_before: string | null }>(`/api/v1/events?${params}`)).body;
        return { events: body.data, older: body.next_before };
      }
      // One preset's stream, by revision. The newest page starts a page before the revision its ETag
      // names and reads to the end (the stream may have grown since); an older one ends where the
      // page after it started.
      const base = `/api/v1/presets/${encodeURIComponent(preset)}`;
      const events: PresetEvent[] = [];
      let from: number;
      if (typeof older === 'number') {
        from = Math.max(0, older - PAGE);
        events.push(...(await call<{ data: PresetEvent[] }>(`${base}/events?from=${from}&limit=${older - from}`)).body.data);
      } else {
        const { etag } = await call(`${base}?include_archived=true`);
        from = Math.max(0, Number(/^"(\d+)"$/.exec(etag ?? '')?.[1] ?? 0) + 1 - PAGE);
        for (let next: number | null = from; next !== null;) {
          const body: { data: PresetEvent[]; next_from: number | null } = (
            await call<{ data: PresetEvent[]; next_from: number | null }>(`${base}/events?from=${next}&limit=1000`)
          ).body;
          events.push(...body.data);
          next = body.next_from;
        }
      }
      return { events: events.filter((e) => !type || e.type === type).reverse(), older: from > 0 ? from : null };
    },
    [call, preset, type],
  );

  const reload = useCallback(async () => {
    setBusy(true);
    try {
      setFeed(await page(undefined));
      setFailure(undefined);
    } catch (error) {
      setFeed({ events: [], older: null });
      setFailure(error instanceof ApiFailure ? error : new ApiFailure(0, String(error)));
    } finally {
      setBusy(false);
    }
  }, [page]);
  useEffect(() => void reload(), [reload]);

  const showOlder = async () => {
    if (feed.older === null) return;
    setBusy(true);
    try {
      const older = await page(feed.older);
      setFeed((f) => ({ events: [...f.events, ...older.events], older: older.older }));
    } catch (error) {
      setFailure(error instanceof ApiFailure ? error : new ApiFailure(0, String(error)));
    } finally {
      setBusy(false);
    }
  };

  useLiveEvents((event) => {
    if (event === null) {
      void reload();
      return;
    }
    if ((type && event.type !== type) || (preset && slugOfStream(event.stream) !== preset)) return;
    setFeed((f) => (f.events.some((e) => e.id === event.id) ? f : { ...f, events: [event, ...f.events] }));
  });

  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        Events
      </h1>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setPreset(presetInput.trim());
        }}
      >
        <div>
          <label for="event-type">Type</label>
          <select id="event-type" value={type} onChange={(e) => setType(e.currentTarget.value)}>
            <option value="">All types</option>
            {EVENT_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="event-preset">Preset (slug)</label>
          <div role="group">
            <input
              id="event-preset"
              type="text"
              spellcheck={false}
              value={presetInput}
              onInput={(e) => setPresetInput(e.currentTarget.value)}
            />
            <button type="submit" class="secondary">
              Filter
            </button>
          </div>
        </div>
      </form>
      <Failure failure={failure} />
      <p role="status" class="muted">
        {!busy && feed.events.length === 0 && !failure ? 'No events match.' : `${feed.events.length} events shown, newest first.`}
      </p>
      <ol class="feed" aria-busy={busy}>
        {feed.events.map((event) => {
          const slug = slugOfStream(event.stream);
          const d = describeEvent(event);
          return (
            <li key={event.id} data-type={event.type}>
              <div class="muted when">
                <Time iso={event.recorded_at} /> · <code>{event.type}</code> · position <code>{event.position}</code>
              </div>
              <p class="what">
                {slug ? <Link href={`/presets/${encodeURIComponent(slug)}`}>{slug}</Link> : <code>{event.stream}</code>}:{' '}
                <strong>{event.metadata.actorUserId}</strong> {d.what}
                {d.format && <span class="muted"> {d.format}</span>}
              </p>
              {d.note && <Note text={d.note} />}
            </li>
          );
        })}
      </ol>
      {feed.older !== null && (
        <button type="button" class="secondary" onClick={() => void showOlder()} disabled={busy} aria-busy={busy}>
          Show older events
        </button>
      )}
    </>
  );
};
