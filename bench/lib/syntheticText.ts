const ROLES = ['link', 'button', 'textbox', 'StaticText', 'listitem'] as const;

/**
 * A take_snapshot response in upstream's text format with `nodes` uid lines, nested like a long list of items
 * (upstream's own big page: ~42 bytes per line).
 */
export function snapshotText(nodes: number, snapshotId = 7): string {
  const lines = ['## Latest page snapshot', `uid=${snapshotId}_0 RootWebArea "Big page" url="http://127.0.0.1:8080/big.html"`, `  uid=${snapshotId}_1 list`];
  for (let index = 2; index < nodes; index++) {
    const role = ROLES[index % ROLES.length] ?? 'generic';
    const depth = role === 'listitem' ? 2 : 3;
    const name = role === 'link' ? `"Item link ${index}" url="http://127.0.0.1:8080/big.html#item-${index}"` : role === 'textbox' ? `"Field ${index}"` : `"Action ${index}"`;
    lines.push(`${'  '.repeat(depth)}uid=${snapshotId}_${index} ${role} ${name}`);
  }
  return lines.join('\n');
}

/** A `## Pages` list of `tabs` tabs, as upstream prints every tab of the browser. */
export function pageListText(tabs: number): string {
  const lines = ['## Pages'];
  for (let id = 1; id <= tabs; id++) {
    lines.push(`${id}: Tab ${id} (http://127.0.0.1:8080/page-${id}.html)${id === tabs ? ' [selected]' : ''}`);
  }
  return lines.join('\n');
}
