import { removeSingletonFolder } from './chromeHolding.js';
import { describeSingletonFolderRemoval } from './testing/singletonFolderCases.js';

describeSingletonFolderRemoval('removeSingletonFolder', async (userDataDir, pid) => {
  await removeSingletonFolder(userDataDir, pid);
});
