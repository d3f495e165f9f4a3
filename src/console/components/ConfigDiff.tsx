import { create } from 'jsondiffpatch';
import { format } from 'jsondiffpatch/formatters/html';
import 'jsondiffpatch/formatters/styles/html.css';
import { useMemo, useState } from 'preact/hooks';

// Array items are compared by position, never shown as moved: the moved-item arrows of the HTML
// formatter are drawn with inline styles, which the console's Content-Security-Policy forbids.
const differ = create({ arrays: { detectMove: false } });

/**
 * Two configs as a structured JSON diff (jsondiffpatch's HTML formatter, which escapes every
 * value). Each changed field says in words whether it was added, removed or changed, so the diff
 * does not rely on colour alone.
 */
export const ConfigDiff = ({
  left,
  right,
  leftName,
  rightName,
}: {
  left: unknown;
  right: unknown;
  leftName: string;
  rightName: string;
}) => {
  const [showUnchanged, setShowUnchanged] = useState(false);
  const html = useMemo(() => {
    const delta = differ.diff(left, right);
    return delta === undefined ? undefined : format(delta, left);
  }, [left, right]);
  if (html === undefined)
    return (
      <p>
        The configs of {leftName} and {rightName} are the same.
      </p>
    );
  return (
    <div>
      <label>
        <input type="checkbox" role="switch" checked={showUnchanged} onChange={(e) => setShowUnchanged(e.currentTarget.checked)} />
        Show unchanged fields
      </label>
      <p class="muted">
        Changes from {leftName} to {rightName}; a changed value shows the old one first.
      </p>
      <div
        class={`config-diff ${showUnchanged ? 'jsondiffpatch-unchanged-visible' : 'jsondiffpatch-unchanged-hidden'}`}
        data-testid="config-diff"
        // jsondiffpatch's HTML formatter escapes every key and value it writes.
        dangerouslySetInnerHTML={{ __html: html }}
      />
    </div>
  );
};
