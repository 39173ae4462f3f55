import { useEffect, useState, type ReactNode } from 'react';
import { useIsPending } from './TabmuxContext.js';

export interface ActionButtonProps {
  /** The action key (see actionKey); while it is pending the button shows `busyLabel` and ignores clicks. */
  pendingKey: string;
  onRun: () => Promise<void>;
  children: ReactNode;
  busyLabel: string;
  testId: string;
  variant?: 'primary' | 'danger' | 'ghost';
  disabled?: boolean;
  title?: string | undefined;
  /** Ask for a second click before running, for actions an agent cannot undo. */
  confirmLabel?: string;
}

const CONFIRM_WINDOW_MS = 3000;

export function ActionButton(props: ActionButtonProps) {
  const pending = useIsPending(props.pendingKey);
  const [armed, setArmed] = useState(false);

  useEffect(() => {
    if (!armed) {
      return undefined;
    }
    const timer = setTimeout(() => setArmed(false), CONFIRM_WINDOW_MS);
    return () => clearTimeout(timer);
  }, [armed]);

  const onClick = (): void => {
    if (props.confirmLabel && !armed) {
      setArmed(true);
      return;
    }
    setArmed(false);
    void props.onRun();
  };

  const classes = ['btn', `btn-${props.variant ?? 'ghost'}`, pending ? 'is-pending' : '', armed ? 'is-armed' : ''].filter(Boolean).join(' ');
  return (
    <button
      type="button"
      className={classes}
      data-testid={props.testId}
      data-pending={pending ? 'true' : undefined}
      data-confirm={props.confirmLabel ? 'true' : undefined}
      aria-busy={pending}
      disabled={pending || props.disabled === true}
      title={props.title}
      onClick={onClick}
    >
      {pending ? (
        <>
          <span className="spinner" aria-hidden="true" />
          {props.busyLabel}
        </>
      ) : armed ? (
        props.confirmLabel
      ) : (
        props.children
      )}
    </button>
  );
}
