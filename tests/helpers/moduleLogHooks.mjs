// Module hooks for moduleLog.mjs; they run on the loader's own thread.
import { appendFileSync } from 'node:fs';

let file;

export function initialize(data) {
  file = data.file;
}

export async function load(url, context, nextLoad) {
  if (file && !url.startsWith('node:')) {
    appendFileSync(file, `${url}\n`);
  }
  return nextLoad(url, context);
}
