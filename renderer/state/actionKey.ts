/**
 * Names one user action on one object, e.g. `session:sess-…:pause`. The pending map is keyed by it so a button
 * can show that its own action is in flight and ignore a second click.
 */
export function actionKey(...parts: readonly (string | number)[]): string {
  return parts.join(':');
}
