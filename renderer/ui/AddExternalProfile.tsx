import { useState, type SyntheticEvent } from 'react';
import { actionKey } from '../state/actionKey.js';
import { useActions, useIsPending } from './TabmuxContext.js';

/**
 * Adds a profile on a browser the user runs, like `tabmux profile add NAME --browser-url URL`. The server checks
 * the input; its message stays under the form until the user edits or cancels, so a typo is fixed in place.
 */
export function AddExternalProfile() {
  const actions = useActions();
  const pending = useIsPending(actionKey('profiles', 'addExternal'));
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [browserUrl, setBrowserUrl] = useState('http://127.0.0.1:9222');
  const [isolation, setIsolation] = useState<'tab' | 'window'>('tab');
  const [error, setError] = useState<string | null>(null);

  const close = (): void => {
    setOpen(false);
    setName('');
    setError(null);
  };

  const submit = (event: SyntheticEvent): void => {
    event.preventDefault();
    void actions.addExternalProfile({ name, browserUrl, isolation }).then((refused) => (refused === null ? close() : setError(refused)));
  };

  if (!open) {
    return (
      <button
        type="button"
        className="btn btn-ghost add-profile-open"
        onClick={() => setOpen(true)}
        data-testid="add-profile-button"
        title="Let agents use a browser you started with --remote-debugging-port"
      >
        + Add your browser
      </button>
    );
  }
  return (
    <form className="add-profile" onSubmit={submit} onKeyDown={(event) => event.key === 'Escape' && close()} data-testid="add-profile-form">
      <label>
        <span>Name</span>
        <input
          value={name}
          onChange={(event) => {
            setName(event.target.value);
            setError(null);
          }}
          placeholder="mine"
          spellCheck={false}
          autoFocus
          data-testid="add-profile-name"
        />
      </label>
      <label>
        <span>Browser URL</span>
        <input
          value={browserUrl}
          onChange={(event) => {
            setBrowserUrl(event.target.value);
            setError(null);
          }}
          placeholder="http://127.0.0.1:9222"
          spellCheck={false}
          data-testid="add-profile-url"
        />
      </label>
      <label>
        <span>Agents' tabs</span>
        <select value={isolation} onChange={(event) => setIsolation(event.target.value === 'window' ? 'window' : 'tab')} data-testid="add-profile-isolation">
          <option value="tab">where Chrome opens tabs</option>
          <option value="window">a window per session</option>
        </select>
      </label>
      {error !== null && (
        <p className="form-error" role="alert" data-testid="add-profile-error">
          {error}
        </p>
      )}
      <div className="add-profile-actions">
        <button type="submit" className="btn btn-primary" disabled={pending || !name.trim() || !browserUrl.trim()} data-testid="add-profile-submit">
          {pending ? 'Adding…' : 'Add'}
        </button>
        <button type="button" className="btn btn-ghost" onClick={close} data-testid="add-profile-cancel">
          Cancel
        </button>
      </div>
    </form>
  );
}
