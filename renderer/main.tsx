// First: it configures zod before any schema is built.
import './host/zodJitless.js';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { pickHost } from './host/pickHost.js';
import { connectStore } from './state/connectStore.js';
import { createActions } from './state/createActions.js';
import { createTabmuxStore } from './state/createTabmuxStore.js';
import { PictureFeed } from './state/PictureFeed.js';
import { App } from './ui/App.js';
import { TabmuxContext } from './ui/TabmuxContext.js';
import './styles.css';

// The one place that wires host, store and UI together; components only see the context.
const host = pickHost(window);
const store = createTabmuxStore();
const actions = createActions(host, store);
const disconnect = connectStore(host, store);
const pictures = new PictureFeed(host);
// A hidden window (a background browser tab, the tray window closed to the tray) asks for no frames.
const showing = (): void => pictures.setActive(document.visibilityState === 'visible');
document.addEventListener('visibilitychange', showing);
showing();
window.addEventListener('pagehide', (event) => {
  // A page kept in the back-forward cache may come back; keep its connection logic intact for it.
  if (event.persisted) {
    return;
  }
  disconnect();
  pictures.dispose();
  host.dispose();
});

const container = document.getElementById('root');
if (!container) {
  throw new Error('index.html has no #root element');
}
createRoot(container).render(
  <StrictMode>
    <TabmuxContext value={{ store, actions, pictures }}>
      <App />
    </TabmuxContext>
  </StrictMode>,
);
