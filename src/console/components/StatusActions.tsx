import type { PresetStatus } from '../api/types';

/** The status changes a preset's current status allows, as the lifecycle defines them. */
const ACTIONS: Record<PresetStatus, Array<{ to: PresetStatus; label: string; explain: string }>> = {
  active: [
    { to: 'disabled', label: 'Disable', explain: 'It stays editable but may not be used.' },
    { to: 'archived', label: 'Archive', explain: 'Hidden from the list and frozen until restored.' },
  ],
  disabled: [
    { to: 'active', label: 'Enable', explain: 'It may be used again.' },
    { to: 'archived', label: 'Archive', explain: 'Hidden from the list and frozen until restored.' },
  ],
  archived: [
    { to: 'active', label: 'Restore', explain: 'Active again, listed and editable.' },
    { to: 'disabled', label: 'Restore as disabled', explain: 'Listed and editable, not usable.' },
  ],
};

export const StatusActions = ({
  status,
  busy,
  onChange,
}: {
  status: PresetStatus;
  busy: boolean;
  onChange: (to: PresetStatus) => void;
}) => (
  <div class="actions">
    {ACTIONS[status].map((action) => (
      <button
        key={action.to}
        type="button"
        class={action.to === 'archived' ? 'secondary outline' : 'secondary'}
        disabled={busy}
        title={action.explain}
        onClick={() => onChange(action.to)}
      >
        {action.label}
      </button>
    ))}
  </div>
);
