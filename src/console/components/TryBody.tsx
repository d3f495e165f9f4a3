import { useState } from 'preact/hooks';
import { ApiFailure } from '../api/client';
import { FORMATS, type DryRun, type Preset, type SourceFormat, type Version } from '../api/types';
import { useSession } from '../hooks/useSession';
import { ConfigDiff } from './ConfigDiff';
import { Failure } from './Failure';
import { JsonBlock, TextBlock } from './JsonBlock';
import { PromptDiff } from './PromptDiff';

/**
 * "Try a body": paste an inference request of any of the three formats, see what a version made
 * from it would keep (the service's own dry run: `?dry_run=true`), then save it as a new version.
 * Saving sends the same body, with If-Match when the preset exists, so nothing changed meanwhile.
 */
export const TryBody = ({
  slug,
  etag,
  designated,
  onSaved,
  idPrefix,
}: {
  slug: string;
  /** The ETag of the preset as shown; null for a preset that does not exist yet. */
  etag: string | null;
  /** The version the preview is compared with, if any. */
  designated?: Version;
  onSaved: (preset: Preset | null, etag: string | null, status: number) => void;
  idPrefix: string;
}) => {
  const { call } = useSession();
  const [format, setFormat] = useState<SourceFormat>('chat_completions');
  const [text, setText] = useState('');
  const [note, setNote] = useState('');
  const [preview, setPreview] = useState<{ dryRun: DryRun; text: string; format: SourceFormat; note: string } | undefined>();
  const [failure, setFailure] = useState<ApiFailure | undefined>();
  const [busy, setBusy] = useState(false);
  const path = FORMATS.find((f) => f.format === format)!.path;

  const parse = (): unknown => {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new ApiFailure(400, `The body is not valid JSON: ${(error as Error).message}`);
    }
  };

  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setFailure(undefined);
    try {
      await action();
    } catch (error) {
      setFailure(error instanceof ApiFailure ? error : new ApiFailure(0, String(error)));
    } finally {
      setBusy(false);
    }
  };

  const previewBody = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      setPreview(undefined);
      const { body } = await call<{ data: DryRun }>(`/api/v1/presets/${encodeURIComponent(slug)}/${path}?dry_run=true`, {
        method: 'POST',
        json: parse(),
        note,
      });
      setPreview({ dryRun: body.data, text, format, note });
    });
  };

  const save = () =>
    run(async () => {
      const answer = await call<{ data: Preset }>(`/api/v1/presets/${encodeURIComponent(slug)}/${path}`, {
        method: 'POST',
        json: parse(),
        ifMatch: etag,
        note,
      });
      setPreview(undefined);
      setText('');
      setNote('');
      onSaved(answer.status === 200 ? answer.body.data : null, answer.etag, answer.status);
    });

  // Saving is offered for the body that was previewed, as it was previewed.
  const current = preview && preview.text === text && preview.format === format && preview.note === note;
  return (
    <section aria-labelledby={`${idPrefix}-heading`}>
      <h2 id={`${idPrefix}-heading`}>Try a body</h2>
      <p class="muted">Paste an inference request; the preview shows what a new version would keep. Nothing is stored until you save.</p>
      <form onSubmit={previewBody}>
        <label for={`${idPrefix}-format`}>Request format</label>
        <select id={`${idPrefix}-format`} value={format} onChange={(e) => setFormat(e.currentTarget.value as SourceFormat)}>
          {FORMATS.map((f) => (
            <option key={f.format} value={f.format}>
              {f.label} (POST …/{f.path})
            </option>
          ))}
        </select>
        <label for={`${idPrefix}-body`}>Request body (JSON)</label>
        <textarea
          id={`${idPrefix}-body`}
          rows={8}
          spellcheck={false}
          required
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
          class="code"
        />
        <label for={`${idPrefix}-note`}>Note for the new version (optional)</label>
        <input id={`${idPrefix}-note`} type="text" maxLength={1000} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
        <button type="submit" class="secondary" aria-busy={busy && !preview} disabled={busy}>
          Preview
        </button>
      </form>
      <Failure failure={failure} />
      {preview && (
        <div aria-live="polite" data-testid="dry-run">
          <h3>What the new version would keep</h3>
          <h4>Config</h4>
          <JsonBlock value={preview.dryRun.config} label="Config of the previewed version" />
          <h4>System prompt</h4>
          <TextBlock text={preview.dryRun.system_prompt} label="System prompt of the previewed version" />
          {designated && (
            <details>
              <summary>Compared with version {designated.version}, the designated one</summary>
              <ConfigDiff
                left={designated.config}
                right={preview.dryRun.config}
                leftName={`version ${designated.version}`}
                rightName="the preview"
              />
              <PromptDiff
                left={designated.system_prompt}
                right={preview.dryRun.system_prompt}
                leftName={`version ${designated.version}`}
                rightName="the preview"
              />
            </details>
          )}
          <button type="button" onClick={save} disabled={busy || !current} aria-busy={busy}>
            {etag ? 'Save as a new version' : `Create ${slug}`}
          </button>
          {!current && <p class="muted">The body changed since the preview: preview it again to save it.</p>}
        </div>
      )}
    </section>
  );
};
