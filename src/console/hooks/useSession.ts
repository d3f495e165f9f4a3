import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Answer, CallOptions } from '../api/client';

/** The signed-in session: API calls with its key, and signing out. */
export interface SessionValue {
  key: string;
  /** callApi with this session's key; a 401 signs out with its message. */
  call<T>(path: string, options?: CallOptions): Promise<Answer<T>>;
  signOut(message?: string): void;
}

export const SessionContext = createContext<SessionValue | null>(null);

export const useSession = (): SessionValue => {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in session');
  return session;
};
