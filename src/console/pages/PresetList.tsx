import { useEffect, useRef, useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import type { ListPage, Preset } from '../api/types';
import { Failure } from '../components/Failure';
import { LabelList } from '../components/LabelList';
import { useLiveEvents } from '../components/LiveProvider';
import { StatusBadge } from '../components/StatusBadge';
import { Time } from '../components/Time';
import { TryBody } from '../components/TryBody';
import { useLoad } from '../hooks/useLoad';
import { useSession } from '../hooks/useSession';
import { usePageTitle } from '../hooks/usePageTitle';

const PAGE_SIZE = 25;
const STATUS_FILTERS = [
  { value: '', label: 'Active and disabled' },
  { value: 'active', label: 'Active' },
  { value: 'disabled', label: 'Disabled' },
  { value: 'archived', label: 'Archived' },
  { value: 'all', label: 'All' },
];

/** The workspace's presets, most recently updated first: search, status filter, pages, live. */
export const PresetList = () => {
  const { call } = useSession();
  const heading = usePageTitle('Presets');
  const [, navigate] = useLocation();
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  const [status, setStatus] = useState('');
  const [offset, setOffset] = useState(0);

  // The search runs once typing pauses, from the first page; nothing else moves the page.
  useEffect(() => {
    const next = search.trim();
    if (next === query) return;
    const timer = setTimeout(() => {
      setQuery(next);
      setOffset(0);
    }, 250);
    return () => clearTimeout(timer);
  }, [search, query]);

  const list = useLoad(
    async (signal) => {
      const params = new URLSearchParams({ offset: String(offset), limit: String(PAGE_SIZE) });
      if (status) params.set('status', status);
      if (query) params.set('q', query);
      return { ...(await call<ListPage<Preset>>(`/api/v1/presets?${params}`, { signal })).body, offset };
    },
    [offset, status, query],
  );

  // Any change in the workspace may reorder the list: load it again, at most every 250 ms.
  const pending = useRef<ReturnType<typeof setTimeout>>();
  useLiveEvents(() => {
    clearTimeout(pending.current);
    pending.current = setTimeout(list.reload, 250);
  });
  useEffect(() => () => clearTimeout(pending.current), []);

  const total = list.data?.total_count ?? 0;
  const shown = list.data?.data ?? [];
  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        Presets
      </h1>
      <form role="search" class="filters" onSubmit={(e) => e.preventDefault()}>
        <div>
          <label for="preset-search">Search by slug or name</label>
          <input id="preset-search" type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
        </div>
        <div>
          <label for="preset-status">Status</label>
          <select
            id="preset-status"
            value={status}
            onChange={(e) => {
              setStatus(e.currentTarget.value);
              setOffset(0);
            }}
          >
            {STATUS_FILTERS.map((f) => (
              <option key={f.value} value={f.value}>
                {f.label}
              </option>
            ))}
          </select>
        </div>
      </form>
      <Failure failure={list.error} />
      <p role="status" aria-live="polite" class="muted">
        {list.data &&
          (total === 0
            ? 'No preset matches.'
            : `Presets ${list.data.offset + 1}–${list.data.offset + shown.length} of ${total}, most recently updated first.`)}
      </p>
      {shown.length > 0 && (
        <div class="overflow-auto">
          <table class="striped presets stack" role="table" aria-busy={list.loading}>
            <thead>
              <tr>
                <th scope="col">Preset</th>
                <th scope="col">Designated</th>
                <th scope="col">Labels</th>
                <th scope="col">Status</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((p) => (
                <tr key={p.id} data-slug={p.slug} role="row">
                  <th scope="row" role="rowheader">
                    <Link href={`/presets/${encodeURIComponent(p.slug)}`}>{p.name}</Link>
                    {p.name !== p.slug && <div class="muted slug">{p.slug}</div>}
                  </th>
                  <td role="cell" data-label="Designated">
                    v{p.designated_version.version}
                  </td>
                  <td role="cell" data-label="Labels">
                    <LabelList labels={p.labels ?? {}} />
                  </td>
                  <td role="cell" data-label="Status">
                    <StatusBadge status={p.status} />
                    {p.status_updated_at && (
                      <div class="muted">
                        since <Time iso={p.status_updated_at} />
                      </div>
                    )}
                  </td>
                  <td role="cell" data-label="Updated">
                    <Time iso={p.updated_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {total > PAGE_SIZE && (
        <nav aria-label="Pages of presets" class="pager">
          <button type="button" class="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
            Previous page
          </button>
          <button type="button" class="secondary" disabled={offset + PAGE_SIZE >= total} onClick={() => setOffset(offset + PAGE_SIZE)}>
            Next page
          </button>
        </nav>
      )}
      <NewPreset onCreated={(slug) => navigate(`/presets/${encodeURIComponent(slug)}`)} />
    </>
  );
};

const SLUG = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$/;

/** A new preset from a pasted body: its slug, then "try a body" and create. */
const NewPreset = ({ onCreated }: { onCreated: (slug: string) => void }) => {
  const [slug, setSlug] = useState('');
  const valid = SLUG.test(slug);
  return (
    <details class="new-preset">
      <summary>New preset</summary>
      <label for="new-slug">Slug</label>
      <input
        id="new-slug"
        type="text"
        value={slug}
        spellcheck={false}
        aria-invalid={slug !== '' && !valid ? true : undefined}
        aria-describedby="new-slug-help"
        onInput={(e) => setSlug(e.currentTarget.value)}
      />
      <small id="new-slug-help">
        1–128 of A–Z a–z 0–9 . _ ~ -, starting with a letter or digit. A slug already in use adds a version to that preset.
      </small>
      {valid && <TryBody slug={slug} etag={null} idPrefix="new" onSaved={() => onCreated(slug)} />}
    </details>
  );
};
