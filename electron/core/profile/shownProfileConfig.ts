import { redactTemplateUrl, variablesIn } from './browserUrl.js';
import type { ProfileConfig } from './ProfileStore.js';

/**
 * A profile's config as listings show it: the external endpoint with literal credentials hidden (`${VAR}`
 * references stay, they name no secret), header values hidden unless they only reference variables, and the start
 * command as written (it comes from the user and says what runs).
 */
export function shownProfileConfig(config: ProfileConfig): ProfileConfig {
  const shown: ProfileConfig = { ...config };
  if (config.browserUrl !== undefined) {
    shown.browserUrl = redactTemplateUrl(config.browserUrl);
  }
  if (config.wsEndpoint !== undefined) {
    shown.wsEndpoint = redactTemplateUrl(config.wsEndpoint);
  }
  if (config.wsHeaders !== undefined) {
    shown.wsHeaders = Object.fromEntries(Object.entries(config.wsHeaders).map(([name, value]) => [name, onlyReferences(value) ? value : 'redacted']));
  }
  return shown;
}

/** Whether a header value holds nothing but `${VAR}` references and words around them that cannot be a secret. */
function onlyReferences(value: string): boolean {
  if (variablesIn(value).length === 0) {
    return false;
  }
  const rest = value.replace(/\$\{[A-Za-z_][A-Za-z0-9_]*\}/g, '').trim();
  return rest === '' || /^(Bearer|Basic|Token)$/i.test(rest);
}
