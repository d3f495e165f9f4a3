import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { ApiFailure, type CallOptions } from '../api/client';
import type { ListPage, Preset, PresetEvent, PresetStatus, SplitShare, Usage, Version } from '../api/types';
import { describeEvent } from '../describe';
import { Breadcrumb } from '../components/Breadcrumb';
import { Failure } from '../components/Failure';
import { History } from '../components/History';
import { JsonBlock, TextBlock } from '../components/JsonBlock';
import { Labels } from '../components/Labels';
import { Rollouts } from '../components/Rollouts';
import { Proposals } from '../components/Proposals';
import { useMe } from '../hooks/useMe';
import { useLiveEvents } from '../components/LiveProvider';
import { StatusActions } from '../components/StatusActions';
import { StatusBadge } from '../components/StatusBadge';
import { Time } from '../components/Time';
import { NewTemplatedVersion } from '../components/NewTemplatedVersion';
import { TemplateView } from '../components/TemplateView';
import { TryBody } from '../components/TryBody';
import { TryTemplate } from '../components/TryTemplate';
import { Versions } from '../components/Versions';
import { usePageTitle } from '../hooks/usePageTitle';
import { useSession } from '../hooks/useSession';

const HISTORY_PAGE = 100;
type EventPage = { data: PresetEvent[]; next_from: number | null };
const VERSIONS_PAGE = 100;

/** The revision an ETag `"N"` names. */
const revisionOf = (etag: string | null) => {
  const match = /^"(\d+)"$/.exec(etag ?? '');
  return match ? Number(match[1]) : 0;
};

/**
 * One preset: its history at the centre; beside it what is current (the designated version, the
 * labels, the status) with the changes the lifecycle allows. Every write sends If-Match with the
 * ETag of what the page shows: if someone else changed the preset meanwhile, the service refuses
 * it (412) and the page says so, without reloading by itself.
 */
/** What a change answered 202 waits for approval of, in words (its `change`). */
const PROPOSED_CHANGES: Record<string, string> = {
  remove_label: 'the removal',
  protect: 'the change of protection',
  status: 'the change of status',
};

export const PresetPage = ({ slug }: { slug: string }) => {
  const { call } = useSession();
  const me = useMe();
  const heading = usePageTitle(slug);
  const base = `/api/v1/presets/${encodeURIComponent(slug)}`;

  const [shown, setShown] = useState<{ preset: Preset; etag: string | null }>();
  const [loadFailure, setLoadFailure] = useState<ApiFailure>();
  const [versions, setVersions] = useState<{ items: Version[]; from: number }>({ items: [], from: 0 });
  const [history, setHistory] = useState<{ events: PresetEvent[]; from: number }>({ events: [], from: 0 });
  const [olderBusy, setOlderBusy] = useState(false);
  const [busy, setBusy] = useState(false);
  const [actionFailure, setActionFailure] = useState<ApiFailure>();
  const [message, setMessage] = useState('');
  const [liveNews, setLiveNews] = useState('');
  const [note, setNote] = useState('');
  const [usage, setUsage] = useState<Usage>();

  const loadVersions = useCallback(async () => {
    const first = (await call<ListPage<Version>>(`${base}/versions?offset=0&limit=${VERSIONS_PAGE}`)).body;
    const from = Math.max(0, first.total_count - VERSIONS_PAGE);
    const page = from === 0 ? first : (await call<ListPage<Version>>(`${base}/versions?offset=${from}&limit=${VERSIONS_PAGE}`)).body;
    setVersions({ items: [...page.data].reverse(), from });
  }, [base, call]);

  /** The newest events, from a little before the revision the ETag names to the end of the stream. */
  const loadHistory = useCallback(
    async (etag: string | null) => {
      const from = Math.max(0, revisionOf(etag) - (HISTORY_PAGE - 1));
      const events: PresetEvent[] = [];
      for (let next: number | null = from; next !== null;) {
        const page: EventPage = (await call<EventPage>(`${base}/events?from=${next}&limit=1000`)).body;
        events.push(...page.data);
        next = page.next_from;
      }
      setHistory({ events: events.reverse(), from });
    },
    [base, call],
  );

  /** What each label and version served in the last 24 hours (resolutions counted by the service and reporting clients). */
  const loadUsage = useCallback(async () => {
    setUsage((await call<{ data: Usage }>(`${base}/usage`)).body.data);
  }, [base, call]);

  const load = useCallback(async () => {
    try {
      // An archived preset too: the API hides it from the get unless asked for, as OpenRouter does.
      const answer = await call<{ data: Preset }>(`${base}?include_archived=true`);
      setShown({ preset: answer.body.data, etag: answer.etag });
      setLoadFailure(undefined);
      await Promise.all([loadVersions(), loadHistory(answer.etag), loadUsage()]);
    } catch (error) {
      if (error instanceof ApiFailure) setLoadFailure(error);
    }
  }, [base, call, loadVersions, loadHistory, loadUsage]);

  useEffect(() => {
    setShown(undefined);
    setMessage('');
    setActionFailure(undefined);
    void load();
  }, [load]);

  // Another client's change to this preset shows at once, and is announced; a burst of events
  // (a reconnection catching up) loads the page once.
  const presetId = shown?.preset.id;
  const pending = useRef<ReturnType<typeof setTimeout>>();
  const loadSoon = () => {
    clearTimeout(pending.current);
    pending.current = setTimeout(() => void load(), 100);
  };
  useEffect(() => () => clearTimeout(pending.current), []);
  useLiveEvents((event) => {
    if (event === null) {
      loadSoon();
      return;
    }
    if (event.data.presetId !== presetId) return;
    const d = describeEvent(event);
    setLiveNews(`${event.metadata.actorUserId} ${d.what}.`);
    loadSoon();
  });

  const showOlderEvents = async () => {
    setOlderBusy(true);
    try {
      const from = Math.max(0, history.from - HISTORY_PAGE);
      const page = (await call<{ data: PresetEvent[] }>(`${base}/events?from=${from}&limit=${history.from - from}`)).body;
      setHistory((h) => ({ events: [...h.events, ...[...page.data].reverse()], from }));
    } catch (error) {
      if (error instanceof ApiFailure) setActionFailure(error);
    } finally {
      setOlderBusy(false);
    }
  };

  const showOlderVersions = async () => {
    const from = Math.max(0, versions.from - VERSIONS_PAGE);
    const page = (await call<ListPage<Version>>(`${base}/versions?offset=${from}&limit=${versions.from - from}`)).body;
    setVersions((v) => ({ items: [...v.items, ...[...page.data].reverse()], from }));
  };

  /** A write with If-Match: the preset as shown, or a 412 said in plain words. */
  const write = async (done: string, path: string, options: CallOptions) => {
    if (!shown) return;
    setBusy(true);
    setActionFailure(undefined);
    setMessage('');
    try {
      const answer = await call<{ data: Preset }>(path, { ...options, ifMatch: shown.etag, note: note.trim() || undefined });
      setNote('');
      const proposed = (answer.body as unknown as { data?: { proposal_id?: string; approvals_required?: number; change?: string } }).data;
      if (answer.status === 202 && proposed?.proposal_id) {
        await load();
        const what = PROPOSED_CHANGES[proposed.change ?? ''] ?? 'the move';
        setMessage(`This is protected: ${what} is proposed and waits for ${proposed.approvals_required} approval(s) by other people.`);
      } else if (answer.status === 200) {
        setShown({ preset: answer.body.data, etag: answer.etag });
        // Said once the page shows the change everywhere, history included.
        await Promise.all([loadVersions(), loadHistory(answer.etag)]).catch(() => undefined);
        setMessage(`${done}.`);
      } else {
        setMessage(`${done}; the page shows it once the service has caught up.`);
      }
    } catch (error) {
      setActionFailure(error instanceof ApiFailure ? error : new ApiFailure(0, String(error)));
    } finally {
      setBusy(false);
    }
  };

  /** A version saved from one of the page's forms: shown at once when the answer has it. */
  const onSaved = (saved: Preset | null, etag: string | null, status: number) => {
    if (saved && status === 200) {
      setShown({ preset: saved, etag });
      void Promise.all([loadVersions(), loadHistory(etag)])
        .catch(() => undefined)
        .then(() => setMessage(`Version ${saved.designated_version.version} saved and designated.`));
    } else {
      setMessage('Version saved; the page shows it once the service has caught up.');
    }
  };

  const preset = shown?.preset;
  const frozen = preset?.status === 'archived';
  const changeStatus = (to: PresetStatus) => void write(`The status is now ${to}`, base, { method: 'PATCH', json: { status: to } });
  return (
    <>
      <Breadcrumb trail={[{ href: '/', label: 'Presets' }]} current={slug} />
      <header class="preset-header">
        {/* One heading from the first render on: it keeps the focus it was given while the preset loads. */}
        <h1 ref={heading} tabIndex={-1} aria-busy={!preset && !loadFailure ? 'true' : undefined}>
          {preset?.name ?? slug}
        </h1>
        {preset && (
          <p>
            <code>{preset.slug}</code> <StatusBadge status={preset.status} />{' '}
            <span class="muted">
              {preset.status_updated_at ? (
                <>
                  status since <Time iso={preset.status_updated_at} />
                </>
              ) : (
                <>
                  created <Time iso={preset.created_at} />
                </>
              )}
              {' · '}updated <Time iso={preset.updated_at} />
            </span>
          </p>
        )}
        {preset?.description && <p>{preset.description}</p>}
      </header>
      {!preset && loadFailure && (
        <>
          <Failure failure={loadFailure} />
          <Link href="/">Back to the presets</Link>
        </>
      )}
      {preset && shown && (
        <>
          <div role="status" aria-live="polite" class="messages">
            {message && <p class="success">{message}</p>}
            {liveNews && <p class="muted">Live: {liveNews}</p>}
          </div>
          <Failure failure={actionFailure} />

          <div class="preset-layout">
            <section aria-labelledby="history-heading" class="history">
              <h2 id="history-heading">History</h2>
              <History slug={preset.slug} events={history.events} more={history.from > 0} onMore={showOlderEvents} busy={olderBusy} />
            </section>

            <aside class="current">
              <section aria-labelledby="designated-heading">
                <h2 id="designated-heading">
                  Designated version: v{preset.designated_version.version}
                  {preset.designated_version.template_format === 'handlebars' && <span class="badge template">template</span>}
                </h2>
                <p class="muted">
                  by {preset.designated_version.creator_id}, <Time iso={preset.designated_version.created_at} />
                  {preset.designated_version.note && <> — “{preset.designated_version.note}”</>}
                </p>
                <h3>Config</h3>
                <JsonBlock value={preset.designated_version.config} label={`Config of version ${preset.designated_version.version}`} />
                <h3>System prompt</h3>
                <TextBlock
                  text={preset.designated_version.system_prompt}
                  label={`System prompt of version ${preset.designated_version.version}`}
                />
                <TemplateView version={preset.designated_version} idPrefix="designated" />
              </section>
              <section aria-labelledby="labels-heading">
                <h2 id="labels-heading">Labels</h2>
                <Labels
                  labels={preset.labels ?? {}}
                  versions={versions.items}
                  busy={busy}
                  frozen={frozen}
                  onMove={(label, version) =>
                    void write(`Label ${label} now names version ${version}`, `${base}/labels/${encodeURIComponent(label)}`, {
                      method: 'PUT',
                      json: { version },
                    })
                  }
                  onRemove={(label) =>
                    void write(`Label ${label} removed`, `${base}/labels/${encodeURIComponent(label)}`, { method: 'DELETE' })
                  }
                  protections={preset.protected_labels ?? {}}
                  onProtect={(label, approvals) =>
                    void write(
                      approvals === null ? `Label ${label} is no longer protected` : `Label ${label} is protected`,
                      `${base}/labels/${encodeURIComponent(label)}/protection`,
                      { method: 'PUT', json: approvals === null ? { protected: false } : { protected: true, approvals } },
                    )
                  }
                />
              </section>

              <section aria-labelledby="proposals-heading">
                <h2 id="proposals-heading">Proposals</h2>
                <Proposals
                  items={(preset.proposals ?? []).map((proposal) => ({ slug: preset.slug, proposal }))}
                  userId={me.data?.user_id}
                  busy={busy}
                  onStep={(_, proposal, step) =>
                    void write(
                      { approve: 'Approved', reject: 'Rejected', withdraw: 'Withdrawn' }[step],
                      `${base}/proposals/${proposal.id}/${step}`,
                      {
                        method: 'POST',
                      },
                    )
                  }
                />
              </section>

              <section aria-labelledby="rollouts-heading">
                <h2 id="rollouts-heading">Rollouts</h2>
                {frozen ? (
                  <p class="muted">Archived: set it back to active to split or move labels.</p>
                ) : (
                  <Rollouts
                    labels={preset.labels ?? {}}
                    versions={versions.items}
                    events={history.events}
                    usage={usage}
                    busy={busy}
                    onSplit={(label: string, split: SplitShare[]) =>
                      void write(
                        `Label ${label} is split: ${split.map((s) => `v${s.version} ${s.weight}`).join(', ')}`,
                        `${base}/labels/${encodeURIComponent(label)}`,
                        { method: 'PUT', json: { split } },
                      )
                    }
                    onMove={(label: string, version: number, what: string) =>
                      void write(what, `${base}/labels/${encodeURIComponent(label)}`, { method: 'PUT', json: { version } })
                    }
                  />
                )}
              </section>

              <section aria-labelledby="manage-heading">
                <h2 id="manage-heading">Status</h2>
                <p>
                  This preset is <StatusBadge status={preset.status} />.
                  {frozen && ' It is archived: set it back to active to add versions, move labels or designate.'}
                </p>
                <label for="change-note">Note for your next change here (optional)</label>
                <input id="change-note" type="text" maxLength={1000} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
                <StatusActions status={preset.status} busy={busy} onChange={changeStatus} />
              </section>
            </aside>
          </div>

          <section aria-labelledby="versions-heading">
            <h2 id="versions-heading">Versions</h2>
            {versions.items.length > 0 && (
              <Versions
                key={versions.items[0]!.version}
                slug={preset.slug}
                versions={versions.items}
                designated={preset.designated_version.version}
                labels={preset.labels ?? {}}
                busy={busy}
                frozen={frozen}
                onDesignate={(version) =>
                  void write(`Version ${version} is now the designated version`, `${base}/designated-version`, {
                    method: 'PUT',
                    json: { version },
                  })
                }
                more={versions.from > 0}
                onMore={() => void showOlderVersions()}
              />
            )}
          </section>

          {preset.designated_version.template_format === 'handlebars' && preset.status === 'active' && (
            <TryTemplate
              key={preset.designated_version.id}
              slug={preset.slug}
              version={preset.designated_version}
              idPrefix="try-template"
            />
          )}

          {!frozen && (
            <>
              <TryBody slug={preset.slug} etag={shown.etag} designated={preset.designated_version} idPrefix="try" onSaved={onSaved} />
              <NewTemplatedVersion
                key={preset.designated_version.id}
                slug={preset.slug}
                etag={shown.etag}
                designated={preset.designated_version}
                idPrefix="new-template"
                onSaved={onSaved}
              />
            </>
          )}
        </>
      )}
    </>
  );
};
