import { useCallback, useMemo, useState } from 'preact/hooks';
import { Link, Route, Router, Switch } from 'wouter-preact';
import { useHashLocation } from 'wouter-preact/use-hash-location';
import { ApiFailure, callApi, type CallOptions } from './api/client';
import { LiveProvider, useLiveState } from './components/LiveProvider';
import { SessionContext, type SessionValue } from './hooks/useSession';
import { DiffPage } from './pages/DiffPage';
import { EventsPage } from './pages/EventsPage';
import { KeysPage } from './pages/KeysPage';
import { ProposalsPage } from './pages/ProposalsPage';
import { PresetList } from './pages/PresetList';
import { PresetPage } from './pages/PresetPage';
import { SignIn } from './pages/SignIn';
import { forgetKey, storedKey, storeKey } from './session';

/**
 * The console: sign in, then the presets, one preset with its history and diffs, and the
 * workspace's events. Views are addressed in the URL's fragment (`#/presets/support-bot`), so the
 * service serves one page and links into the console can be shared; the key never is.
 */
export const App = () => {
  const [key, setKey] = useState<string | null>(storedKey);
  const [notice, setNotice] = useState<string | null>(null);

  const signOut = useCallback((message?: string) => {
    forgetKey();
    setKey(null);
    setNotice(message ?? null);
  }, []);

  const session = useMemo<SessionValue | null>(() => {
    if (!key) return null;
    return {
      key,
      signOut,
      call: async <T,>(path: string, options?: CallOptions) => {
        try {
          return await callApi<T>(key, path, options);
        } catch (error) {
          // A key that stops being accepted (revoked, the keys file changed) ends the session.
          if (error instanceof ApiFailure && error.status === 401) signOut(error.message);
          throw error;
        }
      },
    };
  }, [key, signOut]);

  if (!session) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(k) => {
          storeKey(k);
          setNotice(null);
          setKey(k);
        }}
      />
    );
  }
  return (
    <SessionContext.Provider value={session}>
      <LiveProvider>
        <Router hook={useHashLocation}>
          <a class="skip-link" href="#main" onClick={skipToMain}>
            Skip to content
          </a>
          <Header onSignOut={() => signOut()} />
          <main id="main" class="container" tabIndex={-1}>
            <Switch>
              <Route path="/">{() => <PresetList />}</Route>
              <Route path="/events">{() => <EventsPage />}</Route>
              <Route path="/proposals">{() => <ProposalsPage />}</Route>
              <Route path="/keys">{() => <KeysPage />}</Route>
              <Route path="/presets/:slug/diff/:from/:to">
                {(params: { slug: string; from: string; to: string }) => (
                  <DiffPage slug={decodeURIComponent(params.slug)} from={Number(params.from)} to={Number(params.to)} />
                )}
              </Route>
              <Route path="/presets/:slug">{(params: { slug: string }) => <PresetPage slug={decodeURIComponent(params.slug)} />}</Route>
              <Route>
                <h1>Not found</h1>
                <p>
                  No such page in the console. <Link href="/">Go to the presets</Link>.
                </p>
              </Route>
            </Switch>
          </main>
        </Router>
      </LiveProvider>
    </SessionContext.Provider>
  );
};

/** The fragment addresses views, so the skip link moves focus itself instead of navigating. */
const skipToMain = (e: Event) => {
  e.preventDefault();
  document.getElementById('main')?.focus();
};

const LIVE_WORDS = { connecting: 'connecting…', live: 'live', reconnecting: 'reconnecting…', denied: 'off (not allowed)' };

const Header = ({ onSignOut }: { onSignOut: () => void }) => {
  const live = useLiveState();
  return (
    <header class="container site-header">
      <nav aria-label="Main">
        <ul>
          <li>
            <strong>presets</strong>
          </li>
        </ul>
        <ul>
          <li>
            <Link href="/">Presets</Link>
          </li>
          <li>
            <Link href="/events">Events</Link>
          </li>
          <li>
            <Link href="/proposals">Proposals</Link>
          </li>
          <li>
            <Link href="/keys">Keys</Link>
          </li>
          <li>
            <span class={`live live-${live}`} role="status" title="Changes by others appear without a reload while this says live">
              Updates: {LIVE_WORDS[live]}
            </span>
          </li>
          <li>
            <button type="button" class="secondary outline small" onClick={onSignOut}>
              Sign out
            </button>
          </li>
        </ul>
      </nav>
    </header>
  );
};
