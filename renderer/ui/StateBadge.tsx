import type { ProfileBadge } from '../state/profileStatus.js';

export function StateBadge(props: { badge: ProfileBadge; testId?: string }) {
  const { badge } = props;
  return (
    <span className={`badge badge-${badge.tone}`} data-testid={props.testId} data-state={badge.state} title={badge.title}>
      <span className="badge-dot" aria-hidden="true" />
      {badge.label}
    </span>
  );
}
