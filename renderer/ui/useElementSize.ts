import { useLayoutEffect, useState } from 'react';

export interface ElementSize {
  width: number;
  height: number;
}

/**
 * The inner size (padding included) of an element, kept current as it changes: window resizes, panels wrapping.
 * Returns a callback ref, so an element that appears later (once a list has rows) is measured too. The size is null
 * until the element is laid out; views then draw their roomy layout.
 */
export function useElementSize<T extends HTMLElement>(): [(element: T | null) => void, T | null, ElementSize | null] {
  const [element, setElement] = useState<T | null>(null);
  const [size, setSize] = useState<ElementSize | null>(null);
  useLayoutEffect(() => {
    if (!element) {
      return undefined;
    }
    const measure = (): void => {
      const width = element.clientWidth;
      const height = element.clientHeight;
      setSize((last) => (last?.width === width && last.height === height ? last : { width, height }));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, [element]);
  return [setElement, element, size];
}
