import { useCallback, useEffect, useState, type SyntheticEvent } from 'react';
import type { PolicyRule } from '../../shared/policy.js';
import { actionKey } from '../state/actionKey.js';
import { ActionButton } from './ActionButton.js';
import { Panel } from './Panel.js';
import { useActions, useTabmux } from './TabmuxContext.js';

/**
 * The profile's policies (the same rules as `tabmux policy list`): each with Remove, and a form to add one. Rules
 * live in the profile's config; the daemon applies a change to every session's next call. The list is read again
 * after each change made here, and follows the daemon's push of a change made anywhere else.
 */
export function PoliciesPanel(props: { profile: string }) {
  const { profile } = props;
  const actions = useActions();
  const [rules, setRules] = useState<PolicyRule[]>([]);
  const [tools, setTools] = useState('');
  const [url, setUrl] = useState('');
  const [action, setAction] = useState('deny');
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);

  const reload = useCallback(async () => setRules(await actions.loadPolicies(profile)), [actions, profile]);
  useEffect(() => {
    void reload();
  }, [reload]);
  // A change made anywhere else (tabmux policy add or remove, another window, the config) arrives as an event.
  const pushed = useTabmux((state) => state.policies[profile]);
  useEffect(() => {
    if (pushed) {
      setRules(pushed);
    }
  }, [pushed]);

  const add = async (event: SyntheticEvent): Promise<void> => {
    event.preventDefault();
    const refused = await actions.addPolicy(profile, { tools: [tools], url, action, reason });
    setError(refused);
    if (refused === null) {
      setTools('');
      setUrl('');
      setReason('');
    }
    await reload();
  };

  return (
    <Panel title="Policies" count={rules.length} testId="policies-panel">
      <div className="policies-body">
        {rules.length === 0 ? (
          <p className="muted">No rules: agents may use every tool on every site.</p>
        ) : (
          <ul className="policies-list">
            {rules.map((rule) => (
              <li key={rule.id} data-testid={`policy-${rule.id}`}>
                <code>{rule.action}</code> {rule.tools.join(', ')} on <code>{rule.url}</code>
                {rule.reason ? <span className="muted"> ({rule.reason})</span> : null}{' '}
                <ActionButton pendingKey={actionKey('policy', profile, rule.id)} busyLabel="Removing…" testId={`policy-remove-${rule.id}`} variant="ghost" onRun={() => actions.removePolicy(profile, rule.id).then(reload)}>
                  Remove
                </ActionButton>
              </li>
            ))}
          </ul>
        )}
        <form className="policies-form" onSubmit={(event) => void add(event)}>
          <input aria-label="Tools" data-testid="policy-tools" placeholder="Tools, e.g. navigate_page,new_page" value={tools} onChange={(event) => setTools(event.target.value)} />
          <input aria-label="URL pattern" data-testid="policy-url" placeholder="URL pattern, e.g. *.example.com" value={url} onChange={(event) => setUrl(event.target.value)} />
          <select aria-label="Action" data-testid="policy-action" value={action} onChange={(event) => setAction(event.target.value)}>
            <option value="deny">deny</option>
            <option value="allow">allow only</option>
            <option value="confirm">confirm</option>
          </select>
          <input aria-label="Reason" data-testid="policy-reason" placeholder="Reason (optional)" value={reason} onChange={(event) => setReason(event.target.value)} />
          <button type="submit" className="btn btn-primary" data-testid="policy-add">
            Add rule
          </button>
        </form>
        {error && (
          <p className="error-text" data-testid="policy-error">
            {error}
          </p>
        )}
      </div>
    </Panel>
  );
}
