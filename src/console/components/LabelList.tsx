/** A preset's labels as "name → vN", in name order. */
export const LabelList = ({ labels }: { labels: Record<string, number> }) => {
  const names = Object.keys(labels).sort();
  if (names.length === 0) return <span class="muted">none</span>;
  return (
    <ul class="labels">
      {names.map((name) => (
        <li key={name} class="badge label">
          {name} → v{labels[name]}
        </li>
      ))}
    </ul>
  );
};
