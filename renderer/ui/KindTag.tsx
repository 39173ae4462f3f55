import type { ProfileEntry } from '../state/ServerState.js';

/** Whether tabmux launched the profile's Chrome or connects to a browser the user runs. */
export function KindTag(props: { kind: ProfileEntry['kind']; testId: string }) {
  const external = props.kind === 'external';
  return (
    <span
      className={`kind kind-${props.kind}`}
      data-testid={props.testId}
      data-kind={props.kind}
      title={external ? 'A browser you run; tabmux only connects to it and never closes it' : 'A Chrome that tabmux launches on its own user-data-dir'}
    >
      {external ? 'external' : 'launched'}
    </span>
  );
}
