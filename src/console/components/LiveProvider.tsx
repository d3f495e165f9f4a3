import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { followEvents, type LiveState } from '../api/live';
import type { PresetEvent } from '../api/types';
import { useSession } from '../hooks/useSession';

/**
 * One live connection to the workspace's event feed for the whole console; views listen to it.
 * A listener gets each new event, and `null` when the connection (re)opens: what happened while
 * it was closed is unknown, so a view loads again.
 */
export type LiveListener = (event: PresetEvent | null) => void;

interface LiveValue {
  state: LiveState;
  listen(listener: LiveListener): () => void;
}

const LiveContext = createContext<LiveValue>({ state: 'connecting', listen: () => () => {} });

export const LiveProvider = ({ children }: { children: ComponentChildren }) => {
  const { key, call, signOut } = useSession();
  const [state, setState] = useState<LiveState>('connecting');
  const listeners = useRef(new Set<LiveListener>());
  const listen = useCallback((listener: LiveListener) => {
    listeners.current.add(listener);
    return () => {
      listeners.current.delete(listener);
    };
  }, []);
  const value = useMemo(() => ({ state, listen }), [state, listen]);

  useEffect(() => {
    let stop: (() => void) | undefined;
    let cancelled = false;
    const notify = (event: PresetEvent | null) => {
      for (const listener of [...listeners.current]) listener(event);
    };
    // Follow from the newest event: the views load what came before it themselves. Until the
    // newest is known the feed is not followed at all (following from the start would replay the
    // workspace's whole history into the open view).
    let retry: ReturnType<typeof setTimeout> | undefined;
    const start = () => {
      call<{ data: PresetEvent[] }>('/api/v1/events?direction=backwards&limit=1').then(
        ({ body }) => {
          if (cancelled) return;
          stop = followEvents({
            key,
            after: body.data[0]?.position ?? null,
            onEvent: notify,
            onOpen: () => notify(null),
            onState: setState,
            onDenied: (failure) => {
              if (failure.status === 401) signOut(failure.message);
            },
          });
        },
        () => {
          if (cancelled) return;
          setState('reconnecting');
          retry = setTimeout(start, 5000);
        },
      );
    };
    start();
    return () => {
      cancelled = true;
      clearTimeout(retry);
      stop?.();
    };
  }, [key, call, signOut]);

  return <LiveContext.Provider value={value}>{children}</LiveContext.Provider>;
};

export const useLiveState = (): LiveState => useContext(LiveContext).state;

/** Calls `listener` for each live event (and `null` on each reconnection) while mounted. */
export const useLiveEvents = (listener: LiveListener): void => {
  const { listen } = useContext(LiveContext);
  const current = useRef(listener);
  current.current = listener;
  useEffect(() => listen((event) => current.current(event)), [listen]);
};
