import { useEffect, useRef, type CSSProperties } from 'react';
import type { PictureSize, TabPicture } from '../../shared/model.js';
import { usePictures } from './TabmuxContext.js';

/** Decodes a frame off the main thread's critical path: `createImageBitmap` takes the JPEG bytes as they are. */
function decode(picture: TabPicture): Promise<ImageBitmap> {
  const binary = atob(picture.data);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) {
    bytes[index] = binary.charCodeAt(index);
  }
  return createImageBitmap(new Blob([bytes], { type: 'image/jpeg' }));
}

/**
 * The live picture of one tab, drawn on a canvas as frames arrive; watched only while it is on screen. The canvas
 * keeps the frame's own pixel size and is scaled by CSS, so it shows the page's proportions at any size.
 * `data-frames` counts the frames drawn (tests wait on it).
 */
export function TabPictureView(props: { profile: string; tabId: string; size: PictureSize; testId: string; className?: string; style?: CSSProperties | undefined; onPicture?: (picture: TabPicture, canvas: HTMLCanvasElement) => void }) {
  const { profile, tabId, size, onPicture } = props;
  const pictures = usePictures();
  const canvas = useRef<HTMLCanvasElement>(null);
  const latestCallback = useRef(onPicture);
  latestCallback.current = onPicture;

  useEffect(() => {
    let cancelled = false;
    let frames = 0;
    // Frames are drawn in the order they came, one decode at a time.
    let drawing: Promise<void> = Promise.resolve();
    const stop = pictures.watch(profile, tabId, size, (picture) => {
      drawing = drawing
        .then(async () => {
          const bitmap = await decode(picture);
          const element = canvas.current;
          if (cancelled || !element) {
            bitmap.close();
            return;
          }
          if (element.width !== bitmap.width || element.height !== bitmap.height) {
            element.width = bitmap.width;
            element.height = bitmap.height;
          }
          element.getContext('2d')?.drawImage(bitmap, 0, 0);
          bitmap.close();
          frames += 1;
          element.dataset['frames'] = String(frames);
          latestCallback.current?.(picture, element);
        })
        .catch(() => undefined);
    });
    return () => {
      cancelled = true;
      stop();
    };
  }, [pictures, profile, tabId, size]);

  return <canvas ref={canvas} className={`picture ${props.className ?? ''}`} data-testid={props.testId} data-tab-id={tabId} data-frames="0" width={16} height={10} style={props.style} />;
}
