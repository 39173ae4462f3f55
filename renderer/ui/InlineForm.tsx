import { useEffect, useRef, useState, type SyntheticEvent } from 'react';

export interface InlineFormProps {
  placeholder: string;
  submitLabel: string;
  initialValue?: string;
  /** Whether an empty value may be submitted (a session label is optional; a URL is not). */
  allowEmpty?: boolean;
  inputType?: 'text' | 'url';
  testIdPrefix: string;
  onSubmit: (value: string) => void;
  onCancel: () => void;
}

/** A one-field form that opens in place. The tray window has no window.prompt, and a modal would hide the state. */
export function InlineForm(props: InlineFormProps) {
  const [value, setValue] = useState(props.initialValue ?? '');
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);

  const submit = (event: SyntheticEvent): void => {
    event.preventDefault();
    if (!props.allowEmpty && !value.trim()) {
      return;
    }
    props.onSubmit(value);
  };

  return (
    <form className="inline-form" onSubmit={submit} onKeyDown={(event) => event.key === 'Escape' && props.onCancel()}>
      <input
        ref={input}
        type={props.inputType ?? 'text'}
        value={value}
        placeholder={props.placeholder}
        onChange={(event) => setValue(event.target.value)}
        data-testid={`${props.testIdPrefix}-input`}
        spellCheck={false}
      />
      <button type="submit" className="btn btn-primary" data-testid={`${props.testIdPrefix}-submit`} disabled={!props.allowEmpty && !value.trim()}>
        {props.submitLabel}
      </button>
      <button type="button" className="btn btn-ghost" onClick={props.onCancel} data-testid={`${props.testIdPrefix}-cancel`}>
        Cancel
      </button>
    </form>
  );
}
