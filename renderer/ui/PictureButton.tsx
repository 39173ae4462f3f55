import { TabPictureView } from './TabPictureView.js';
import { useTabmux } from './TabmuxContext.js';

/** A tab's small live picture; clicking it opens the large live view. */
export function PictureButton(props: { profile: string; tabId: string; testId: string }) {
  const open = useTabmux((state) => state.openLiveView);
  return (
    <button type="button" className="picture-button" data-testid={`${props.testId}-open`} title="Open the live view of this tab" onClick={() => open(props.profile, props.tabId)}>
      <TabPictureView profile={props.profile} tabId={props.tabId} size="thumb" testId={props.testId} className="picture-thumb" />
    </button>
  );
}
