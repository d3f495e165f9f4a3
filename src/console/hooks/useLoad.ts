import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure } from '../api/client';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiFailure | undefined;
  loading: boolean;
  /** Loads again, keeping what is shown until the new answer is in. */
  reload(): void;
}

/**
 * Loads data for a view and loads it again when `deps` change; an answer that arrives after a
 * newer request was made is dropped, so a slow old answer never replaces a newer one.
 */
export const useLoad = <T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> => {
  const [state, setState] = useState<{ data?: T; error?: ApiFailure; loading: boolean }>({ loading: true });
  const [generation, setGeneration] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const request = ++latest.current;
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    load(controller.signal).then(
      (data) => {
        if (request === latest.current) setState({ data, loading: false });
      },
      (error: unknown) => {
        if (request !== latest.current || (error as Error).name === 'AbortError') return;
        const failure = error instanceof ApiFailure ? error : new ApiFailure(0, (error as Error).message);
        setState((s) => ({ ...s, error: failure, loading: false }));
      },
    );
    return () => controller.abort();
  }, [...deps, generation]); // the caller names what the load depends on
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
};
