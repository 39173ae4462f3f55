import type { ProfileState } from '../../shared/model.js';

const LABELS: Record<ProfileState, string> = {
  stopped: 'stopped',
  starting: 'starting',
  ready: 'ready',
  crashed: 'crashed',
  restarting: 'restarting',
  stopping: 'stopping',
};

export function StateBadge(props: { state: ProfileState; testId?: string }) {
  return (
    <span className={`badge badge-${props.state}`} data-testid={props.testId} data-state={props.state}>
      <span className="badge-dot" aria-hidden="true" />
      {LABELS[props.state]}
    </span>
  );
}
