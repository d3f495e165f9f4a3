import { useState } from 'preact/hooks';
import type { LabelTarget, PresetEvent, SplitShare, Usage, Version } from '../api/types';

/** A share of the weights, as a percentage with at most one decimal. */
const percent = (weight: number, total: number) => `${Math.round((weight / total) * 1000) / 10} %`;

/**
 * The version a split label named before its rollout began: the newest PresetLabelSplit of the label
 * that followed a plain label names it. Undefined when the history loaded does not reach it, or the
 * label was new (then there is nothing to go back to).
 */
export const versionBeforeRollout = (events: PresetEvent[], label: string): number | undefined => {
  for (const e of events) {
    if (e.data.label !== label) continue;
    if (e.type === 'PresetLabelMoved' || e.type === 'PresetLabelRemoved') return undefined;
    if (e.type === 'PresetLabelSplit' && e.data.previousVersions === null) {
      return typeof e.data.previousVersionNumber === 'number' ? e.data.previousVersionNumber : undefined;
    }
  }
  return undefined;
};

/** One split label: the share and the usage of each version, its weights to change, promote and abort. */
const SplitLabel = ({
  label,
  split,
  usage,
  previous,
  busy,
  onSplit,
  onMove,
}: {
  label: string;
  split: SplitShare[];
  usage: Usage | undefined;
  previous: number | undefined;
  busy: boolean;
  onSplit: (label: string, split: SplitShare[]) => void;
  onMove: (label: string, version: number, what: string) => void;
}) => {
  const [weights, setWeights] = useState(split.map((s) => String(s.weight)));
  const numbers = weights.map(Number);
  const valid = numbers.every((w) => Number.isInteger(w) && w >= 1 && w <= 10_000);
  const total = valid ? numbers.reduce((a, b) => a + b, 0) : 0;
  const served = (version: number) => usage?.totals.find((t) => t.label === label && t.version === version)?.count ?? 0;
  const id = (part: string) => `rollout-${label}-${part}`;
  // With two versions, a slider moves the share of the second (the one being rolled out), in whole percents.
  const slider = split.length === 2 && valid ? Math.round((numbers[1]! / total) * 100) : undefined;
  return (
    <article class="rollout" data-rollout={label}>
      <h3>
        {label} <span class="muted">split between {split.length} versions</span>
      </h3>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (valid)
            onSplit(
              label,
              split.map((s, i) => ({ version: s.version, weight: numbers[i]! })),
            );
        }}
      >
        <table class="rollout-table">
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Weight</th>
              <th scope="col">Share</th>
              <th scope="col">Served (24 h)</th>
            </tr>
          </thead>
          <tbody>
            {split.map((s, i) => (
              <tr key={s.version} data-version={s.version}>
                <th scope="row">v{s.version}</th>
                <td>
                  <label for={id(`weight-${s.version}`)} class="visually-hidden">
                    Weight of version {s.version}
                  </label>
                  <input
                    id={id(`weight-${s.version}`)}
                    type="number"
                    min={1}
                    max={10000}
                    step={1}
                    value={weights[i]}
                    onInput={(e) => {
                      const next = [...weights];
                      next[i] = e.currentTarget.value;
                      setWeights(next);
                    }}
                  />
                </td>
                <td class="share">{valid ? percent(numbers[i]!, total) : '—'}</td>
                <td class="served">{served(s.version)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {slider !== undefined && (
          <>
            <label for={id('slider')}>
              Share of version {split[1]!.version}: {slider} %
            </label>
            <input
              id={id('slider')}
              type="range"
              min={1}
              max={99}
              step={1}
              value={slider}
              onInput={(e) => {
                const share = Number(e.currentTarget.value);
                setWeights([String(100 - share), String(share)]);
              }}
            />
          </>
        )}
        <div class="rollout-actions">
          <button type="submit" disabled={busy || !valid}>
            Save weights
          </button>
          {split.map((s) => (
            <button
              key={s.version}
              type="button"
              class="secondary"
              disabled={busy}
              onClick={() => onMove(label, s.version, `Promoted version ${s.version}: label ${label} now names it`)}
            >
              Promote v{s.version}
            </button>
          ))}
          {previous !== undefined && (
            <button
              type="button"
              class="secondary outline"
              disabled={busy}
              onClick={() => onMove(label, previous, `Rollout aborted: label ${label} names version ${previous} again`)}
            >
              Abort: back to v{previous}
            </button>
          )}
        </div>
      </form>
    </article>
  );
};

/**
 * Rollouts: a label split between versions by weight. Start one from a label (its current version
 * keeps the rest of the traffic), change the weights with a slider or numbers, see each version's
 * share and how often it was served in the last 24 hours, promote a version or abort (back to the
 * version the label named before), each in one click.
 */
export const Rollouts = ({
  labels,
  versions,
  events,
  usage,
  busy,
  onSplit,
  onMove,
}: {
  labels: Record<string, LabelTarget>;
  versions: Version[];
  events: PresetEvent[];
  usage: Usage | undefined;
  busy: boolean;
  onSplit: (label: string, split: SplitShare[]) => void;
  onMove: (label: string, version: number, what: string) => void;
}) => {
  const names = Object.keys(labels).sort();
  const split = names.filter((n) => typeof labels[n] === 'object');
  const plain = names.filter((n) => typeof labels[n] === 'number');
  const [label, setLabel] = useState(plain[0] ?? '');
  const from = typeof labels[label] === 'number' ? (labels[label] as number) : undefined;
  const candidates = versions.filter((v) => v.version !== from);
  const [to, setTo] = useState(String(candidates[0]?.version ?? ''));
  const [share, setShare] = useState('5');
  const shareNumber = Number(share);
  const canStart =
    from !== undefined && to !== '' && Number(to) !== from && Number.isInteger(shareNumber) && shareNumber >= 1 && shareNumber <= 99;
  return (
    <>
      {split.length === 0 && <p class="muted">No label is split.</p>}
      {split.map((name) => (
        <SplitLabel
          key={`${name}:${JSON.stringify(labels[name])}`}
          label={name}
          split={(labels[name] as { split: SplitShare[] }).split}
          usage={usage}
          previous={versionBeforeRollout(events, name)}
          busy={busy}
          onSplit={onSplit}
          onMove={onMove}
        />
      ))}
      {plain.length > 0 && versions.length > 1 && (
        <form
          class="start-rollout"
          onSubmit={(e) => {
            e.preventDefault();
            if (canStart) {
              onSplit(label, [
                { version: from!, weight: 100 - shareNumber },
                { version: Number(to), weight: shareNumber },
              ]);
            }
          }}
        >
          <fieldset>
            <legend>Start a rollout</legend>
            <label for="rollout-label">Roll out on label</label>
            <select id="rollout-label" value={label} onChange={(e) => setLabel(e.currentTarget.value)}>
              {plain.map((n) => (
                <option key={n} value={n}>
                  {n} (v{labels[n] as number})
                </option>
              ))}
            </select>
            <label for="rollout-to">the version</label>
            <select id="rollout-to" value={to} onChange={(e) => setTo(e.currentTarget.value)}>
              {candidates.map((v) => (
                <option key={v.version} value={v.version}>
                  v{v.version}
                </option>
              ))}
            </select>
            <label for="rollout-share">with a share (%) of</label>
            <input
              id="rollout-share"
              type="number"
              min={1}
              max={99}
              step={1}
              value={share}
              onInput={(e) => setShare(e.currentTarget.value)}
            />
            <button type="submit" disabled={busy || !canStart}>
              Start rollout
            </button>
          </fieldset>
        </form>
      )}
    </>
  );
};
