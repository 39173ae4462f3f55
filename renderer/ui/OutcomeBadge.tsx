import type { ActivityOutcome } from '../../shared/activity.js';

const KIND: Record<ActivityOutcome, string> = {
  ok: 'ok',
  tool_error: 'warn',
  rejected: 'danger',
  cancelled: 'muted',
  timed_out: 'warn',
  worker_crashed: 'info',
  failed: 'danger',
};

export function OutcomeBadge(props: { outcome: ActivityOutcome; code?: string | undefined }) {
  return (
    <span className={`badge badge-${KIND[props.outcome]}`} data-outcome={props.outcome} title={props.code}>
      {props.outcome.replace('_', ' ')}
    </span>
  );
}
