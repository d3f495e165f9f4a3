import type { LabelTarget } from '../api/types';

/** What a label names, in words: "v3", or for a split label "v3 95 % · v4 5 %". */
export const labelTargetText = (target: LabelTarget): string => {
  if (typeof target === 'number') return `v${target}`;
  const total = target.split.reduce((sum, s) => sum + s.weight, 0);
  return target.split.map((s) => `v${s.version} ${Math.round((s.weight / total) * 1000) / 10} %`).join(' · ');
};

/** A preset's labels as "name → vN" (or its split), in name order. */
export const LabelList = ({ labels }: { labels: Record<string, LabelTarget> }) => {
  const names = Object.keys(labels).sort();
  if (names.length === 0) return <span class="muted">none</span>;
  return (
    <ul class="labels">
      {names.map((name) => (
        <li key={name} class="badge label">
          {name} → {labelTargetText(labels[name]!)}
        </li>
      ))}
    </ul>
  );
};
