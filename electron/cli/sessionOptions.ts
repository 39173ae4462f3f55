import { TabmuxError } from '../../shared/errors.js';
import type { StartOptions } from '../core/lifecycle/daemonProcess.js';
import { boolOption, stringOption, type OptionValues } from './Command.js';

/** `--label`, checked: 1 to 200 characters, or none. */
export function labelOption(values: OptionValues): string | undefined {
  const label = stringOption(values, 'label');
  if (label !== undefined && (label.length === 0 || label.length > 200)) {
    throw new TabmuxError('invalid_params', '--label must be 1 to 200 characters');
  }
  return label;
}

/** `--chrome` and `--headless`, for a daemon the command may have to start. */
export function startOptions(values: OptionValues): StartOptions {
  const start: StartOptions = {};
  const chrome = stringOption(values, 'chrome');
  if (chrome !== undefined) {
    start.chrome = chrome;
  }
  if (boolOption(values, 'headless')) {
    start.headless = true;
  }
  return start;
}
