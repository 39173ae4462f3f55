import { defineConfig } from 'vitest/config';

// Integration files each start their own Chrome and upstream; on 2 cores two files at once is the sweet spot.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          sequence: { groupOrder: 0 },
          include: ['shared/**/*.test.ts', 'electron/**/*.test.ts', 'renderer/**/*.test.ts', 'bench/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          sequence: { groupOrder: 1 },
          include: ['tests/integration/**/*.test.ts'],
          setupFiles: ['tests/integration/setup.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 90_000,
          maxWorkers: 2,
          fileParallelism: true,
        },
      },
      {
        test: {
          name: 'soak',
          sequence: { groupOrder: 2 },
          include: ['tests/soak/**/*.test.ts'],
          environment: 'node',
          testTimeout: 300_000,
          hookTimeout: 90_000,
          maxWorkers: 1,
        },
      },
    ],
  },
});
