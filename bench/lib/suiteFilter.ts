/** The suites `npm run bench` runs, by the names `BENCH_ONLY` takes. */
export const SUITES = ['rewrite', 'parallel', 'routing', 'policies', 'bridge', 'snapshot', 'navigation', 'memory', 'crowd', 'activity', 'pictures', 'headofline', 'overrun', 'coldstart', 'survive'] as const;

export type SuiteName = (typeof SUITES)[number];

/** Suites that need the bench daemon, the direct Chrome and the page server. */
export const BROWSER_SUITES: ReadonlySet<SuiteName> = new Set<SuiteName>(['parallel', 'routing', 'policies', 'bridge', 'snapshot', 'navigation', 'memory', 'crowd']);

function isSuiteName(value: string): value is SuiteName {
  return SUITES.some((suite) => suite === value);
}

/**
 * Which suites to run: all of them, or the comma-separated names in `BENCH_ONLY` (a quick look at one row while
 * working on it). A name the bench does not know is an error rather than an empty run.
 */
export function selectedSuites(only: string | undefined): ReadonlySet<SuiteName> {
  if (only === undefined || only.trim() === '') {
    return new Set(SUITES);
  }
  const selected = new Set<SuiteName>();
  for (const raw of only.split(',')) {
    const name = raw.trim();
    if (name === '') {
      continue;
    }
    if (!isSuiteName(name)) {
      throw new Error(`BENCH_ONLY names an unknown suite "${name}"; known suites: ${SUITES.join(', ')}`);
    }
    selected.add(name);
  }
  return selected;
}
