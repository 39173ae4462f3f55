import { describe, expect, it } from 'vitest';
import { FILE_PARAMS, FOLDER_PARAMS, WRITE_PARAMS } from './fileParams.js';

describe('FILE_PARAMS', () => {
  it('names every file parameter of the installed upstream, with every optional tool family on', async () => {
    const { createTools } = await import('chrome-devtools-mcp/build/src/tools/tools.js');
    const flags = ['experimentalInteropTools', 'categoryExtensions', 'experimentalVision', 'experimentalMemory', 'memoryDebugging', 'devtoolsComments', 'categoryExperimentalThirdParty', 'categoryPwa'];
    const tools = createTools(Object.fromEntries(flags.map((flag) => [flag, true])));
    const upstream = Object.fromEntries(
      tools.filter((tool) => Object.keys(tool.verifyFilesSchema ?? {}).length > 0).map((tool) => [tool.name, Object.keys(tool.verifyFilesSchema ?? {})]),
    );
    expect(FILE_PARAMS).toEqual(upstream);
  });

  it('names as folder parameters, and as parameters that write, only file parameters of the same tools', () => {
    for (const [tool, params] of [...Object.entries(FOLDER_PARAMS), ...Object.entries(WRITE_PARAMS)]) {
      expect(FILE_PARAMS[tool], tool).toEqual(expect.arrayContaining([...params]));
    }
  });
});
