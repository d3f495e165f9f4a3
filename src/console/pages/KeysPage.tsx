import { useState } from 'preact/hooks';
import { ApiFailure } from '../api/client';
import { SCOPES, type ApiKey, type ListPage } from '../api/types';
import { Failure } from '../components/Failure';
import { Time } from '../components/Time';
import { useLoad } from '../hooks/useLoad';
import { useMe } from '../hooks/useMe';
import { usePageTitle } from '../hooks/usePageTitle';
import { useSession } from '../hooks/useSession';

/**
 * The workspace's API keys (scope keys:manage): who holds which, made and revoked here. A new key
 * is shown once, right after it is made: the service keeps only its hash.
 */
export const KeysPage = () => {
  const { call } = useSession();
  const heading = usePageTitle('API keys');
  const me = useMe();
  const keys = useLoad(async (signal) => (await call<ListPage<ApiKey>>('/api/v1/keys', { signal })).body, []);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<ApiFailure>();
  const [made, setMade] = useState<{ name: string; key: string }>();
  const [message, setMessage] = useState('');
  const [userId, setUserId] = useState('');
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(['presets:read']);
  const [workspaces, setWorkspaces] = useState('');

  const act = async (run: () => Promise<void>) => {
    setBusy(true);
    setFailure(undefined);
    setMessage('');
    try {
      await run();
      keys.reload();
    } catch (error) {
      setFailure(error instanceof ApiFailure ? error : new ApiFailure(0, String(error)));
    } finally {
      setBusy(false);
    }
  };

  const create = () =>
    act(async () => {
      const chosen = workspaces.trim() === '' ? [me.data?.workspace_id ?? ''] : workspaces.split(/[\s,]+/).filter(Boolean);
      const answer = await call<{ data: ApiKey & { key: string } }>('/api/v1/keys', {
        method: 'POST',
        json: {
          ...(userId.trim() ? { user_id: userId.trim() } : {}),
          scopes,
          workspaces: chosen,
          ...(name.trim() ? { name: name.trim() } : {}),
        },
      });
      setMade({ name: answer.body.data.name ?? answer.body.data.user_id, key: answer.body.data.key });
      setUserId('');
      setName('');
    });

  const revoke = (key: ApiKey) =>
    act(async () => {
      await call(`/api/v1/keys/${encodeURIComponent(key.id)}`, { method: 'DELETE' });
      setMade(undefined);
      setMessage(`The key ${key.name ?? key.id} is revoked: it is refused from now on.`);
    });

  const rows = keys.data?.data ?? [];
  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        API keys
      </h1>
      <p class="muted">
        Keys made through the API that hold this workspace{me.data ? ` (${me.data.workspace_id})` : ''}. Keys of the keys file are not
        listed.
      </p>
      <div role="status" aria-live="polite" class="messages">
        {message && <p class="success">{message}</p>}
        {made && (
          <div class="new-key">
            <p class="success">The key {made.name} is made. Copy it now: it is shown only this once.</p>
            <p>
              <code data-new-key>{made.key}</code>
            </p>
          </div>
        )}
      </div>
      <Failure failure={failure ?? keys.error} />
      {rows.length === 0 ? (
        <p class="muted">{keys.loading ? 'Loading…' : 'No key has been made through the API.'}</p>
      ) : (
        <div class="overflow-auto">
          <table class="keys">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">User</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((k) => (
                <tr key={k.id} data-key-id={k.id}>
                  <th scope="row">{k.name ?? <span class="muted">(no name)</span>}</th>
                  <td data-label="User">{k.user_id}</td>
                  <td data-label="Scopes">{k.scopes.join(', ')}</td>
                  <td>
                    <Time iso={k.created_at} /> by {k.created_by}
                  </td>
                  <td>{k.last_used_at ? <Time iso={k.last_used_at} /> : <span class="muted">not yet</span>}</td>
                  <td data-label="State">
                    {k.revoked ? 'revoked' : k.expires_at && Date.parse(k.expires_at) <= Date.now() ? 'expired' : 'active'}
                    {k.expires_at && !k.revoked && (
                      <span class="muted">
                        {' '}
                        · expires <Time iso={k.expires_at} />
                      </span>
                    )}
                  </td>
                  <td>
                    {!k.revoked && (
                      <button
                        type="button"
                        class="secondary outline small"
                        disabled={busy}
                        aria-label={`Revoke the key ${k.name ?? k.id}`}
                        onClick={() => void revoke(k)}
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <section aria-labelledby="make-key-heading">
        <h2 id="make-key-heading">Make a key</h2>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void create();
          }}
        >
          <label for="key-user">User id (who will hold it)</label>
          <input
            id="key-user"
            type="text"
            maxLength={200}
            spellcheck={false}
            value={userId}
            placeholder={me.data?.user_id}
            aria-describedby="key-user-hint"
            onInput={(e) => setUserId(e.currentTarget.value)}
          />
          <p id="key-user-hint" class="muted">
            Empty: yours{me.data ? ` (${me.data.user_id})` : ''}. A key is its maker&apos;s: another user only with a key of the keys file
            that may act for others.
          </p>
          <label for="key-name">Name (optional)</label>
          <input id="key-name" type="text" maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <fieldset>
            <legend>Scopes</legend>
            {SCOPES.map((scope) => (
              <label key={scope}>
                <input
                  type="checkbox"
                  name="scopes"
                  value={scope}
                  checked={scopes.includes(scope)}
                  onChange={(e) => setScopes((s) => (e.currentTarget.checked ? [...s, scope] : s.filter((x) => x !== scope)))}
                />
                {scope}
              </label>
            ))}
          </fieldset>
          <label for="key-workspaces">Workspaces (ids, comma-separated; empty: this workspace)</label>
          <input
            id="key-workspaces"
            type="text"
            spellcheck={false}
            value={workspaces}
            placeholder={me.data?.workspace_id}
            onInput={(e) => setWorkspaces(e.currentTarget.value)}
          />
          <button type="submit" disabled={busy || scopes.length === 0}>
            Make the key
          </button>
        </form>
      </section>
    </>
  );
};
