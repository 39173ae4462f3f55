/** Hands a file the UI made to the browser's (or Electron's) download, without a server round trip. */
export function downloadFile(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
  // The download has its own copy once click() returns; the URL can go on the next turn.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
