import type { ReactNode } from 'react';

export interface PanelProps {
  title: string;
  count?: number;
  testId: string;
  actions?: ReactNode;
  /** Shown under the header, e.g. an open inline form. */
  toolbar?: ReactNode;
  children: ReactNode;
}

export function Panel(props: PanelProps) {
  return (
    <section className="panel" data-testid={props.testId} aria-label={props.title}>
      <header className="panel-header">
        <h2>
          {props.title}
          {props.count !== undefined && <span className="count">{props.count}</span>}
        </h2>
        <div className="panel-actions">{props.actions}</div>
      </header>
      {props.toolbar}
      {props.children}
    </section>
  );
}
