import type { PresetStatus } from '../api/types';

export const StatusBadge = ({ status }: { status: PresetStatus }) => <span class={`badge status-${status}`}>{status}</span>;
