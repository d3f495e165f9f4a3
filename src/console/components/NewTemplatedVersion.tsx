import { useState } from 'preact/hooks';
import { ApiFailure } from '../api/client';
import { FORMATS, type DryRun, type Preset, type SourceFormat, type Version } from '../api/types';
import { useSession } from '../hooks/useSession';
import { Failure } from './Failure';
import { JsonBlock, TextBlock } from './JsonBlock';
import { TemplateView } from './TemplateView';

/**
 * A templated version made from its parts (POST /api/v1/presets/{slug}/versions): a Handlebars
 * system prompt, messages after it, and a JSON Schema of its variables (left empty: inferred from
 * the template). Previewed first (`?dry_run=true`: the variables as they would be kept), then saved
 * with If-Match, as the other writes of the page. Starts from the designated version's parts.
 */
export const NewTemplatedVersion = ({
  slug,
  etag,
  designated,
  onSaved,
  idPrefix,
}: {
  slug: string;
  etag: string | null;
  designated: Version;
  onSaved: (preset: Preset | null, etag: string | null, status: number) => void;
  idPrefix: string;
}) => {
  const { call } = useSession();
  const [format, setFormat] = useState<SourceFormat>(designated.source_format ?? 'chat_completions');
  const [config, setConfig] = useState(JSON.stringify(designated.config, null, 2));
  const [system, setSystem] = useState(designated.system_prompt);
  const [messages, setMessages] = useState(JSON.stringify(designated.messages ?? [], null, 2));
  const [variables, setVariables] = useState(designated.variables ? JSON.stringify(designated.variables, null, 2) : '');
  const [note, setNote] = useState('');
  const [preview, setPreview] = useState<{ dryRun: DryRun; sent: string }>();
  const [failure, setFailure] = useState<ApiFailure>();
  const [busy, setBusy] = useState(false);

  const parsed = (text: string, what: string): unknown => {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new ApiFailure(400, `The ${what} is not valid JSON: ${(error as Error).message}`);
    }
  };
  const body = () => ({
    format,
    config: parsed(config, 'config'),
    system_prompt: system,
    messages: parsed(messages, 'messages list'),
    template_format: 'handlebars',
    ...(variables.trim() === '' ? {} : { variables: parsed(variables, 'variables schema') }),
  });

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
  const path = `/api/v1/presets/${encodeURIComponent(slug)}/versions`;
  const sent = () => JSON.stringify({ format, config, system, messages, variables, note });

  const previewIt = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      setPreview(undefined);
      const answer = await call<{ data: DryRun }>(`${path}?dry_run=true`, { method: 'POST', json: body(), note });
      setPreview({ dryRun: answer.body.data, sent: sent() });
    });
  };
  const save = () =>
    run(async () => {
      const answer = await call<{ data: Preset }>(path, { method: 'POST', json: body(), ifMatch: etag, note });
      setPreview(undefined);
      setNote('');
      onSaved(answer.status === 200 ? answer.body.data : null, answer.etag, answer.status);
    });

  const current = preview?.sent === sent();
  const id = (name: string) => `${idPrefix}-${name}`;
  return (
    <section aria-labelledby={id('heading')}>
      <h2 id={id('heading')}>New templated version</h2>
      <p class="muted">
        A Handlebars system prompt (<code>{'{{name}}'}</code>, <code>{'{{#if x}}…{{/if}}'}</code>, <code>{'{{#each list}}…{{/each}}'}</code>
        ) filled in at resolve from the request's <code>prompt_variables</code>, checked against the variables' JSON Schema.
      </p>
      <form onSubmit={previewIt}>
        <label for={id('format')}>Config format</label>
        <select id={id('format')} value={format} onChange={(e) => setFormat(e.currentTarget.value as SourceFormat)}>
          {FORMATS.map((f) => (
            <option key={f.format} value={f.format}>
              {f.label}
            </option>
          ))}
        </select>
        <label for={id('config')}>Config (JSON, that format's fields)</label>
        <textarea
          id={id('config')}
          rows={5}
          spellcheck={false}
          class="code"
          value={config}
          onInput={(e) => setConfig(e.currentTarget.value)}
        />
        <label for={id('system')}>System prompt (a template)</label>
        <textarea
          id={id('system')}
          rows={5}
          spellcheck={false}
          class="code"
          value={system}
          onInput={(e) => setSystem(e.currentTarget.value)}
        />
        <label for={id('messages')}>
          Messages after it (JSON: [{'{'}"role": "user" or "assistant", "content": "…"{'}'}])
        </label>
        <textarea
          id={id('messages')}
          rows={3}
          spellcheck={false}
          class="code"
          value={messages}
          onInput={(e) => setMessages(e.currentTarget.value)}
        />
        <label for={id('variables')}>Variables (a JSON Schema; empty: inferred from the template)</label>
        <textarea
          id={id('variables')}
          rows={6}
          spellcheck={false}
          class="code"
          value={variables}
          onInput={(e) => setVariables(e.currentTarget.value)}
        />
        <label for={id('note')}>Note for the templated version (optional)</label>
        <input id={id('note')} type="text" maxLength={1000} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
        <button type="submit" class="secondary" disabled={busy} aria-busy={busy && !preview}>
          Preview the templated version
        </button>
      </form>
      <Failure failure={failure} />
      {preview && (
        <div aria-live="polite" data-testid="template-preview">
          <h3>What the new version would keep</h3>
          <h4>Config</h4>
          <JsonBlock value={preview.dryRun.config} label="Config of the previewed templated version" />
          <h4>System prompt</h4>
          <TextBlock text={preview.dryRun.system_prompt} label="System prompt of the previewed templated version" />
          <TemplateView
            idPrefix={id('preview')}
            version={{ ...designated, ...preview.dryRun, version: designated.version + 1, note: preview.dryRun.note }}
          />
          <button type="button" onClick={save} disabled={busy || !current} aria-busy={busy}>
            Save as a new version
          </button>
          {!current && <p class="muted">The form changed since the preview: preview it again to save it.</p>}
        </div>
      )}
    </section>
  );
};
