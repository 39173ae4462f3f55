import { useEffect, useLayoutEffect, useRef, useState, type MouseEvent as ReactMouseEvent, type ReactNode } from 'react';

/**
 * A row's actions behind one button, for views too narrow to show them side by side. The list opens below the
 * button (above it near the bottom of the window), fixed to the window so a scrolling table never clips it. It
 * closes on a click outside, on Escape, and once one of its actions ran; an action that asks to be confirmed keeps
 * it open for the second click.
 */
export function RowMenu(props: { testId: string; label: string; title?: string; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const [place, setPlace] = useState<{ top: number; right: number } | null>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);

  useLayoutEffect(() => {
    if (!open || !button.current) {
      setPlace(null);
      return;
    }
    const anchor = button.current.getBoundingClientRect();
    const height = menu.current?.offsetHeight ?? 0;
    const below = anchor.bottom + 4;
    const top = below + height <= window.innerHeight - 4 ? below : Math.max(4, anchor.top - 4 - height);
    setPlace({ top, right: Math.max(4, window.innerWidth - anchor.right) });
  }, [open]);

  useEffect(() => {
    if (!open) {
      return undefined;
    }
    const outside = (event: Event): void => {
      const target = event.target;
      if (target instanceof Node && (menu.current?.contains(target) || button.current?.contains(target))) {
        return;
      }
      setOpen(false);
    };
    const onKey = (event: KeyboardEvent): void => {
      if (event.key === 'Escape') {
        setOpen(false);
        button.current?.focus();
      }
    };
    const close = (): void => setOpen(false);
    document.addEventListener('pointerdown', outside);
    document.addEventListener('keydown', onKey);
    window.addEventListener('resize', close);
    // The menu is fixed to the window: once the rows scroll away from under it, it would point at another row.
    document.addEventListener('scroll', close, true);
    return () => {
      document.removeEventListener('scroll', close, true);
      document.removeEventListener('pointerdown', outside);
      document.removeEventListener('keydown', onKey);
      window.removeEventListener('resize', close);
    };
  }, [open]);

  // Runs after the action's own click handler (the event bubbles up to here): a confirm button that was not armed
  // yet has just armed itself, and the menu stays for the second click.
  const onMenuClick = (event: ReactMouseEvent<HTMLDivElement>): void => {
    const target = event.target;
    const clicked = target instanceof Element ? target.closest('button, select') : null;
    if (clicked instanceof HTMLButtonElement && !(clicked.dataset['confirm'] === 'true' && !clicked.classList.contains('is-armed'))) {
      setOpen(false);
    }
  };

  return (
    <>
      <button
        ref={button}
        type="button"
        className="btn btn-ghost row-menu-button"
        data-testid={props.testId}
        aria-haspopup="menu"
        aria-expanded={open}
        title={props.title}
        onClick={() => setOpen((was) => !was)}
      >
        {props.label} <span aria-hidden="true">▾</span>
      </button>
      {open && (
        <div
          ref={menu}
          className="row-menu"
          role="menu"
          data-testid={`${props.testId}-items`}
          style={place ? { top: place.top, right: place.right } : { visibility: 'hidden' }}
          onClick={onMenuClick}
        >
          {props.children}
        </div>
      )}
    </>
  );
}
