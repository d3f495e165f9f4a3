/** A JSON value, formatted, in a block a keyboard can scroll (it is focusable and labelled). */
export const JsonBlock = ({ value, label }: { value: unknown; label: string }) => (
  <pre class="code" tabIndex={0} aria-label={label}>
    <code>{JSON.stringify(value, null, 2)}</code>
  </pre>
);

/** A text shown as written, line breaks kept. */
export const TextBlock = ({ text, label }: { text: string; label: string }) =>
  text === '' ? (
    <p class="muted">(empty)</p>
  ) : (
    <pre class="code prompt" tabIndex={0} aria-label={label}>
      {text}
    </pre>
  );
