import type { Version } from '../api/types';
import { fieldsOf } from '../variables';
import { TextBlock } from './JsonBlock';

/**
 * What makes a version take input: its variables with their types (a templated version), and the
 * messages it holds after its system prompt (templates too, in a templated version).
 */
export const TemplateView = ({ version, idPrefix }: { version: Version; idPrefix: string }) => {
  const templated = version.template_format === 'handlebars';
  const fields = fieldsOf(version.variables);
  const messages = version.messages ?? [];
  if (!templated && messages.length === 0) return null;
  return (
    <>
      {templated && (
        <>
          <h3 id={`${idPrefix}-variables`}>Variables</h3>
          {fields.length === 0 ? (
            <p class="muted">This template takes no variables.</p>
          ) : (
            <div class="overflow-auto">
              <table class="variables" aria-labelledby={`${idPrefix}-variables`}>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Type</th>
                    <th scope="col">Required</th>
                    <th scope="col">Default</th>
                    <th scope="col">Description</th>
                  </tr>
                </thead>
                <tbody>
                  {fields.map((f) => (
                    <tr key={f.name} data-variable={f.name}>
                      <th scope="row">
                        <code>{f.name}</code>
                      </th>
                      <td data-label="Type">{f.type}</td>
                      <td data-label="Required">{f.required ? 'required' : 'optional'}</td>
                      <td data-label="Default">{'default' in f ? <code>{JSON.stringify(f.default)}</code> : '—'}</td>
                      <td data-label="Description">{f.description ?? ''}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
      {messages.length > 0 && (
        <>
          <h3>Messages after the system prompt</h3>
          <ol class="version-messages">
            {messages.map((m, i) => (
              <li key={i}>
                <span class="badge">{m.role}</span>
                <TextBlock text={m.content} label={`Message ${i + 1} (${m.role}) of version ${version.version}`} />
              </li>
            ))}
          </ol>
        </>
      )}
    </>
  );
};
