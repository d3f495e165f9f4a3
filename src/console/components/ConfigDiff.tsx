import { create } from 'jsondiffpatch';
import { format } from 'jsondiffpatch/formatters/html';
import 'jsondiffpatch/formatters/styles/html.css';
import { useMemo, useState } from 'preact/hooks';
import { JsonBlock } from './JsonBlock';

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
  // jsondiffpatch compares objects by key: configs whose keys are in another order have no delta,
  // yet they are not the same config (a model generates structured output in its schema's order).
  if (html === undefined)
    return JSON.stringify(left) === JSON.stringify(right) ? (
      <p>
        The configs of {leftName} and {rightName} are the same.
      </p>
    ) : (
      <div data-testid="config-order">
        <p>
          The configs of {leftName} and {rightName} hold the same values with keys in another order, which a model may follow (structured
          output comes in its schema&apos;s order):
        </p>
        <h3>{leftName}</h3>
        <JsonBlock value={left} label={`The config of ${leftName}`} />
        <h3>{rightName}</h3>
        <JsonBlock value={right} label={`The config of ${rightName}`} />
      </div>
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
