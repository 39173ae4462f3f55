import type { ReactNode } from 'react';

export function EmptyState(props: { testId: string; title: string; children?: ReactNode }) {
  return (
    <div className="empty" data-testid={props.testId}>
      <p className="empty-title">{props.title}</p>
      {props.children && <div className="empty-body">{props.children}</div>}
    </div>
  );
}
