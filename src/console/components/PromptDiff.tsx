import { diffLines, diffWordsWithSpace, type ChangeObject } from 'diff';
import { useMemo, useState } from 'preact/hooks';

/**
 * Two system prompts as a text diff (jsdiff), by line or by word: removed text struck through and
 * marked "−", added text marked "+", in words for screen readers as well as in colour.
 */
export const PromptDiff = ({ left, right, leftName, rightName }: { left: string; right: string; leftName: string; rightName: string }) => {
  const [byWord, setByWord] = useState(false);
  const parts = useMemo<ChangeObject<string>[]>(
    () => (byWord ? diffWordsWithSpace(left, right) : diffLines(left, right)),
    [left, right, byWord],
  );
  if (left === right)
    return (
      <p>
        The system prompts of {leftName} and {rightName} are the same.
      </p>
    );
  return (
    <div>
      <fieldset class="inline">
        <legend>Compare the prompts</legend>
        <label>
          <input type="radio" name="prompt-diff-mode" checked={!byWord} onChange={() => setByWord(false)} /> by line
        </label>
        <label>
          <input type="radio" name="prompt-diff-mode" checked={byWord} onChange={() => setByWord(true)} /> by word
        </label>
      </fieldset>
      <pre
        class="code text-diff"
        tabIndex={0}
        aria-label={`System prompt changes from ${leftName} to ${rightName}`}
        data-testid="prompt-diff"
      >
        {parts.map((part, i) =>
          part.added ? (
            <ins key={i} class={byWord ? 'word' : 'line'}>
              <span class="visually-hidden">added: </span>
              {byWord ? part.value : prefixLines(part.value, '+ ')}
            </ins>
          ) : part.removed ? (
            <del key={i} class={byWord ? 'word' : 'line'}>
              <span class="visually-hidden">removed: </span>
              {byWord ? part.value : prefixLines(part.value, '− ')}
            </del>
          ) : (
            <span key={i}>{byWord ? part.value : prefixLines(part.value, '  ')}</span>
          ),
        )}
      </pre>
    </div>
  );
};

/** Each line of a block of whole lines, with the mark of its change in front. */
const prefixLines = (block: string, mark: string) => {
  const lines = block.endsWith('\n') ? block.slice(0, -1).split('\n') : block.split('\n');
  return lines.map((line) => `${mark}${line}\n`).join('');
};
