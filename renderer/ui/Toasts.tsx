import { useEffect } from 'react';
import type { Toast } from '../state/UiState.js';
import { useTabmux } from './TabmuxContext.js';

const LIFETIME_MS: Record<Toast['kind'], number> = { error: 12_000, info: 6_000 };

function ToastView(props: { toast: Toast }) {
  const dismiss = useTabmux((state) => state.dismissToast);
  const { toast } = props;

  useEffect(() => {
    const timer = setTimeout(() => dismiss(toast.id), LIFETIME_MS[toast.kind]);
    return () => clearTimeout(timer);
  }, [dismiss, toast.id, toast.kind]);

  return (
    <div className={`toast toast-${toast.kind}`} role={toast.kind === 'error' ? 'alert' : 'status'} data-testid="toast" data-kind={toast.kind}>
      <span className="toast-message">{toast.message}</span>
      <button type="button" className="toast-close" aria-label="Dismiss" onClick={() => dismiss(toast.id)} data-testid="toast-dismiss">
        ×
      </button>
    </div>
  );
}

export function Toasts() {
  const toasts = useTabmux((state) => state.toasts);
  return (
    <div className="toasts" aria-live="polite">
      {toasts.map((toast) => (
        <ToastView key={toast.id} toast={toast} />
      ))}
    </div>
  );
}
