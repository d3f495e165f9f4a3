import { useLoad } from './useLoad';
import { useSession } from './useSession';
import type { Me } from '../api/types';

/** Who the signed-in key is (GET /api/v1/me): its user, workspaces and scopes. */
export const useMe = () => {
  const { call } = useSession();
  return useLoad(async (signal) => (await call<{ data: Me }>('/api/v1/me', { signal })).body.data, []);
};
