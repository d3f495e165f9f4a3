import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import type { LabelTarget, Version } from '../api/types';
import { Time } from './Time';

/**
 * A preset's versions, newest first: designate one (rollback), and pick any two to compare.
 * `frozen`: the preset is archived, so designating is refused (409) and not offered.
 */
export const Versions = ({
  slug,
  versions,
  designated,
  labels,
  busy,
  frozen,
  onDesignate,
  more,
  onMore,
}: {
  slug: string;
  versions: Version[];
  designated: number;
  labels: Record<string, LabelTarget>;
  busy: boolean;
  frozen: boolean;
  onDesignate: (version: number) => void;
  more: boolean;
  onMore: () => void;
}) => {
  const [, navigate] = useLocation();
  const newest = versions[0]?.version ?? 1;
  const [from, setFrom] = useState(String(Math.max(1, newest - 1)));
  const [to, setTo] = useState(String(newest));
  const labelsOf = (n: number) =>
    Object.keys(labels)
      .filter((l) => {
        const target = labels[l]!;
        return typeof target === 'number' ? target === n : target.split.some((s) => s.version === n);
      })
      .sort();
  return (
    <>
      <form
        class="compare"
        onSubmit={(e) => {
          e.preventDefault();
          navigate(`/presets/${encodeURIComponent(slug)}/diff/${from}/${to}`);
        }}
      >
        <fieldset class="compare-row">
          <legend class="visually-hidden">Compare two versions</legend>
          <label for="compare-from">Compare version</label>
          <select id="compare-from" value={from} onChange={(e) => setFrom(e.currentTarget.value)}>
            {versions.map((v) => (
              <option key={v.version} value={v.version}>
                {v.version}
              </option>
            ))}
          </select>
          <label for="compare-to">with version</label>
          <select id="compare-to" value={to} onChange={(e) => setTo(e.currentTarget.value)}>
            {versions.map((v) => (
              <option key={v.version} value={v.version}>
                {v.version}
              </option>
            ))}
          </select>
          <button type="submit" class="secondary">
            Compare
          </button>
        </fieldset>
      </form>
      <div class="overflow-auto">
        <table class="versions stack" role="table">
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Created</th>
              <th scope="col">By</th>
              <th scope="col">Model</th>
              <th scope="col">Note</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {versions.map((v) => (
              <tr key={v.id} data-version={v.version} role="row">
                <th scope="row" role="rowheader">
                  v{v.version}
                  {v.template_format === 'handlebars' && <span class="badge template">template</span>}
                  {labelsOf(v.version).map((l) => (
                    <span key={l} class="badge label">
                      {l}
                    </span>
                  ))}
                </th>
                <td role="cell" data-label="Created">
                  <Time iso={v.created_at} />
                </td>
                <td role="cell" data-label="By">
                  {v.creator_id}
                </td>
                <td role="cell" data-label="Model">
                  {typeof v.config.model === 'string' ? v.config.model : '—'}
                </td>
                <td role="cell" data-label="Note">
                  {v.note ?? ''}
                </td>
                <td role="cell" class="row-actions">
                  {v.version === designated ? (
                    <span class="badge designated">designated</span>
                  ) : (
                    !frozen && (
                      <button
                        type="button"
                        class="secondary small"
                        disabled={busy}
                        aria-label={`Designate version ${v.version}`}
                        onClick={() => onDesignate(v.version)}
                      >
                        Designate
                      </button>
                    )
                  )}
                  {v.version > 1 && (
                    <Link
                      href={`/presets/${encodeURIComponent(slug)}/diff/${v.version - 1}/${v.version}`}
                      aria-label={`Compare version ${v.version - 1} with version ${v.version}`}
                    >
                      diff
                    </Link>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {more && (
        <button type="button" class="secondary" onClick={onMore}>
          Show older versions
        </button>
      )}
    </>
  );
};
