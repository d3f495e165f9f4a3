import { useState } from 'preact/hooks';
import type { LabelTarget, Version } from '../api/types';
import { labelTargetText } from './LabelList';

const LABEL = /^[a-z0-9][a-z0-9_.-]{0,35}$/;

/**
 * A preset's labels (named pointers to versions): move one (or make it) to a version, or remove
 * it. `frozen`: the preset is archived, so label changes are refused (409) and not offered.
 */
export const Labels = ({
  labels,
  versions,
  busy,
  frozen,
  protections = {},
  onMove,
  onRemove,
  onProtect,
}: {
  labels: Record<string, LabelTarget>;
  versions: Version[];
  busy: boolean;
  frozen: boolean;
  /** Protected label → the approvals a move needs. */
  protections?: Record<string, { approvals: number }>;
  onMove: (label: string, version: number) => void;
  onRemove: (label: string) => void;
  /** Protect with this many approvals, or lift the protection (null). */
  onProtect?: (label: string, approvals: number | null) => void;
}) => {
  const names = Object.keys(labels).sort();
  const [approvals, setApprovals] = useState<Record<string, string>>({});
  const [label, setLabel] = useState('');
  const [version, setVersion] = useState(String(versions[0]?.version ?? 1));
  const problem =
    label === ''
      ? undefined
      : !LABEL.test(label)
        ? '1–36 of a–z 0–9 _ . -, starting with a letter or digit'
        : label === 'latest'
          ? '"latest" is reserved'
          : undefined;
  return (
    <>
      {names.length === 0 ? (
        <p class="muted">No labels.</p>
      ) : (
        <div class="overflow-auto">
          <table class="labels-table">
            <thead>
              <tr>
                <th scope="col">Label</th>
                <th scope="col">Version</th>
                <th scope="col">Protection</th>
                {!frozen && (
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {names.map((name) => (
                <tr key={name} data-label={name}>
                  <th scope="row">{name}</th>
                  <td>{labelTargetText(labels[name]!)}</td>
                  <td data-label="Protection">
                    {protections[name]
                      ? `protected${protections[name].approvals > 0 ? `, ${protections[name].approvals} approval${protections[name].approvals === 1 ? '' : 's'}` : ''}`
                      : '—'}
                  </td>
                  {!frozen && (
                    <td class="actions">
                      {onProtect && protections[name] && (
                        <button
                          type="button"
                          class="secondary outline small"
                          disabled={busy}
                          aria-label={`Lift the protection of ${name}`}
                          onClick={() => onProtect(name, null)}
                        >
                          Unprotect
                        </button>
                      )}
                      {onProtect && !protections[name] && (
                        <>
                          <select
                            aria-label={`Approvals a move of ${name} needs`}
                            value={approvals[name] ?? '0'}
                            onChange={(e) => setApprovals((a) => ({ ...a, [name]: e.currentTarget.value }))}
                          >
                            <option value="0">no approval</option>
                            <option value="1">1 approval</option>
                            <option value="2">2 approvals</option>
                          </select>
                          <button
                            type="button"
                            class="secondary outline small"
                            disabled={busy}
                            aria-label={`Protect ${name}`}
                            onClick={() => onProtect(name, Number(approvals[name] ?? '0'))}
                          >
                            Protect
                          </button>
                        </>
                      )}
                      {typeof labels[name] === 'object' ? (
                        <span class="muted">split: promote or abort it under Rollouts</span>
                      ) : (
                        <button
                          type="button"
                          class="secondary outline small"
                          disabled={busy}
                          aria-label={`Remove the label ${name}`}
                          onClick={() => onRemove(name)}
                        >
                          Remove
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {!frozen && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (!problem && label) onMove(label, Number(version));
          }}
        >
          <fieldset role="group" aria-label="Put a label on a version">
            <label for="label-name" class="visually-hidden">
              Label
            </label>
            <input
              id="label-name"
              type="text"
              placeholder="label, e.g. production"
              value={label}
              spellcheck={false}
              required
              aria-invalid={problem ? true : undefined}
              aria-describedby="label-help"
              onInput={(e) => setLabel(e.currentTarget.value)}
            />
            <label for="label-version" class="visually-hidden">
              Version
            </label>
            <select id="label-version" value={version} onChange={(e) => setVersion(e.currentTarget.value)}>
              {versions.map((v) => (
                <option key={v.version} value={v.version}>
                  v{v.version}
                </option>
              ))}
            </select>
            <button type="submit" disabled={busy || Boolean(problem)}>
              Put label
            </button>
          </fieldset>
          <small id="label-help">{problem ?? 'A new name makes a label; an existing one moves to the version chosen.'}</small>
        </form>
      )}
    </>
  );
};
