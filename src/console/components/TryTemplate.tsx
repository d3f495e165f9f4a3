import { useState } from 'preact/hooks';
import { ApiFailure } from '../api/client';
import { FORMATS, type Resolution, type SourceFormat, type Version } from '../api/types';
import { useSession } from '../hooks/useSession';
import { fieldsOf, valuesOf, type Field } from '../variables';
import { Failure } from './Failure';
import { JsonBlock } from './JsonBlock';

/**
 * "Try it": a form made from a templated version's variables schema; the service resolves a request
 * naming that version with the values given (POST /api/v1/resolve/…, nothing stored), and the page
 * shows the request that would be sent, or the problems the service names.
 */
export const TryTemplate = ({ slug, version, idPrefix }: { slug: string; version: Version; idPrefix: string }) => {
  const { call } = useSession();
  const fields = fieldsOf(version.variables);
  const [raw, setRaw] = useState<Record<string, string>>({});
  const [format, setFormat] = useState<SourceFormat>(version.source_format ?? 'chat_completions');
  const [question, setQuestion] = useState('');
  const [answer, setAnswer] = useState<Resolution>();
  const [failure, setFailure] = useState<ApiFailure>();
  const [busy, setBusy] = useState(false);
  const path = FORMATS.find((f) => f.format === format)!.path;

  const request = (values: Record<string, unknown>): Record<string, unknown> => {
    const model = `@preset/${slug}@${version.version}`;
    const turn = question === '' ? [] : [{ role: 'user', content: question }];
    if (format === 'responses') return { model, ...(question === '' ? {} : { input: question }), prompt_variables: values };
    if (format === 'messages') return { model, max_tokens: 1024, messages: turn, prompt_variables: values };
    return { model, messages: turn, prompt_variables: values };
  };

  const run = (e: Event) => {
    e.preventDefault();
    setFailure(undefined);
    setAnswer(undefined);
    const { values, problems } = valuesOf(fields, raw);
    if (problems.length > 0) {
      setFailure(
        new ApiFailure(400, 'Some values cannot be read', { errors: problems.map((p) => ({ path: p.split(':')[0], message: p })) }),
      );
      return;
    }
    setBusy(true);
    call<{ data: Resolution }>(`/api/v1/resolve/${path}`, { method: 'POST', json: request(values) })
      .then((res) => setAnswer(res.body.data))
      .catch((error: unknown) => setFailure(error instanceof ApiFailure ? error : new ApiFailure(0, String(error))))
      .finally(() => setBusy(false));
  };

  const input = (f: Field) => {
    const id = `${idPrefix}-var-${f.name}`;
    const hint = `${id}-hint`;
    const set = (value: string) => setRaw((r) => ({ ...r, [f.name]: value }));
    const common = { id, 'aria-describedby': hint, required: f.required && !('default' in f) };
    return (
      <div key={f.name} class="variable-field">
        <label for={id}>
          <code>{f.name}</code> {f.required ? '(required)' : '(optional)'}
        </label>
        {f.kind === 'choice' ? (
          <select {...common} value={raw[f.name] ?? ''} onChange={(e) => set(e.currentTarget.value)}>
            <option value="">{'default' in f ? `(default: ${JSON.stringify(f.default)})` : '(not given)'}</option>
            {f.choices.map((c, i) => (
              <option key={i} value={String(i)}>
                {typeof c === 'string' ? c : JSON.stringify(c)}
              </option>
            ))}
          </select>
        ) : f.kind === 'boolean' ? (
          <select {...common} value={raw[f.name] ?? ''} onChange={(e) => set(e.currentTarget.value)}>
            <option value="">{'default' in f ? `(default: ${JSON.stringify(f.default)})` : '(not given)'}</option>
            <option value="true">true</option>
            <option value="false">false</option>
          </select>
        ) : f.kind === 'json' ? (
          <textarea
            {...common}
            rows={3}
            spellcheck={false}
            class="code"
            value={raw[f.name] ?? ''}
            onInput={(e) => set(e.currentTarget.value)}
          />
        ) : (
          <input
            {...common}
            type={f.kind === 'text' ? 'text' : 'number'}
            step={f.kind === 'integer' ? 1 : 'any'}
            value={raw[f.name] ?? ''}
            placeholder={'default' in f ? String(f.default) : undefined}
            onInput={(e) => set(e.currentTarget.value)}
          />
        )}
        <small id={hint}>
          {f.type}
          {f.description ? ` — ${f.description}` : ''}
        </small>
      </div>
    );
  };

  return (
    <section aria-labelledby={`${idPrefix}-heading`}>
      <h2 id={`${idPrefix}-heading`}>Try version {version.version} with values</h2>
      <p class="muted">Fill in the variables: the service renders the template and shows the request it would send. Nothing is stored.</p>
      <form onSubmit={run}>
        {fields.map(input)}
        <label for={`${idPrefix}-format`}>Format of the request to show</label>
        <select id={`${idPrefix}-format`} value={format} onChange={(e) => setFormat(e.currentTarget.value as SourceFormat)}>
          {FORMATS.map((f) => (
            <option key={f.format} value={f.format}>
              {f.label}
            </option>
          ))}
        </select>
        <label for={`${idPrefix}-question`}>A user message after the version’s own (optional)</label>
        <input id={`${idPrefix}-question`} type="text" value={question} onInput={(e) => setQuestion(e.currentTarget.value)} />
        <button type="submit" class="secondary" disabled={busy} aria-busy={busy}>
          Show the request
        </button>
      </form>
      <Failure failure={failure} />
      {answer && (
        <div aria-live="polite" data-testid="resolved">
          <h3>The request that would be sent</h3>
          <JsonBlock value={answer.request} label={`The request version ${version.version} resolves to`} />
          {answer.unused_variables && answer.unused_variables.length > 0 && (
            <p class="muted">Not declared, so unused: {answer.unused_variables.join(', ')}</p>
          )}
          {answer.dropped.length > 0 && <p class="muted">Dropped: {answer.dropped.map((d) => d.field).join(', ')}</p>}
        </div>
      )}
    </section>
  );
};
