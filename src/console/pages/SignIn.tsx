import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure, callApi } from '../api/client';
import { Failure } from '../components/Failure';

/**
 * Sign in with an API key: it is tried on a read before it is kept, so a wrong key (401) or a key
 * that may not read presets (403) is said at once.
 */
export const SignIn = ({ notice, onSignedIn }: { notice: string | null; onSignedIn: (key: string) => void }) => {
  const [key, setKey] = useState('');
  const [failure, setFailure] = useState<ApiFailure | undefined>(notice ? new ApiFailure(401, notice) : undefined);
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);

  const submit = async (e: Event) => {
    e.preventDefault();
    const candidate = key.trim();
    if (!candidate) return;
    setBusy(true);
    setFailure(undefined);
    try {
      await callApi(candidate, '/api/v1/presets?limit=1');
      onSignedIn(candidate);
    } catch (error) {
      setFailure(error instanceof ApiFailure ? error : new ApiFailure(0, String(error)));
      setBusy(false);
    }
  };

  return (
    <main id="main" class="container narrow">
      <h1>presets console</h1>
      <p>Sign in with an API key of your workspace. The key stays in this browser tab only, until you sign out or close it.</p>
      <form onSubmit={submit}>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          ref={input}
          type="password"
          name="api-key"
          autoComplete="off"
          spellcheck={false}
          required
          value={key}
          aria-invalid={failure ? true : undefined}
          aria-describedby={failure ? 'sign-in-failure' : undefined}
          onInput={(e) => setKey(e.currentTarget.value)}
        />
        <button type="submit" aria-busy={busy} disabled={busy}>
          Sign in
        </button>
      </form>
      <div id="sign-in-failure">
        <Failure failure={failure} />
      </div>
    </main>
  );
};
