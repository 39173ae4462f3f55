import { TabmuxError } from '../../../shared/errors.js';

/** The `pageId` argument of `select_page` and `close_page`: a whole number, or a clear error. */
export function requirePageId(args: Record<string, unknown>): number {
  const pageId = args['pageId'];
  if (typeof pageId !== 'number' || !Number.isInteger(pageId)) {
    throw new TabmuxError('invalid_params', 'pageId must be the number of one of your pages, as list_pages shows it');
  }
  return pageId;
}
