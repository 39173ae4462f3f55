/**
 * What `work` comes to, or `late` once `ms` have passed without it: every wait in tabmux has an end. The timer is
 * cleared either way, so a deadline never holds a process open once the work is done. A `work` that rejects before the
 * deadline rejects; one that settles after it is left to itself.
 */
export async function withDeadline<T, L>(work: Promise<T>, ms: number, late: L): Promise<T | L> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<L>((resolve) => {
    timer = setTimeout(() => resolve(late), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
