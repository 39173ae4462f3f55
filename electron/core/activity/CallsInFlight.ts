import * as z from 'zod/mini';
import '../../../shared/zodMessages.js';
import { JournalFile, readJournalFile } from '../process/JournalFile.js';

const callInFlightSchema = z.lazy(() => z.object({
  session: z.string(),
  label: z.nullable(z.string()),
  tool: z.string(),
  /** When the call reached the router: with the session and tool, what its activity entry would be known by. */
  at: z.number(),
  page: z.nullable(z.object({ pageId: z.number(), url: z.string() })),
}));

const fileSchema = z.lazy(() => z.object({ version: z.literal(1), calls: z.array(callInFlightSchema) }));

export type CallInFlight = z.infer<typeof callInFlightSchema>;

/**
 * How long changes gather before one write. A call shorter than this usually starts and ends between two writes and
 * never reaches the file; under load the file is written at most this often, whatever the call rate.
 */
export const CALLS_IN_FLIGHT_DEBOUNCE_MS = 100;

/**
 * The calls running now, kept in a small file under the profile's data folder (crash-safe, see JournalFile), so
 * that a daemon started after this one died can log the calls that were under way as cut off by the crash. A call
 * begun less than the debounce before the crash may be missing: the file is written off the calls' path, never
 * before a call runs. Arguments are not kept (they may hold what an agent typed); the tool, session, time and page are.
 */
export class CallsInFlight {
  readonly path: string;
  readonly #file: JournalFile<readonly CallInFlight[]>;
  readonly #calls = new Map<number, CallInFlight>();
  #next = 0;

  constructor(path: string, onError: (error: unknown) => void) {
    this.path = path;
    this.#file = new JournalFile(path, onError, CALLS_IN_FLIGHT_DEBOUNCE_MS, (calls) => ({ version: 1, calls }));
  }

  /** A call began; the function returned says it ended. */
  begin(call: CallInFlight): () => void {
    const key = this.#next++;
    this.#calls.set(key, call);
    this.#schedule();
    return () => {
      this.#calls.delete(key);
      this.#schedule();
    };
  }

  /** Writes the calls running now (none, at a start), replacing what a daemon that died left. */
  write(): Promise<void> {
    return this.#file.write([...this.#calls.values()]);
  }

  /** The daemon stops on purpose: its calls ended and were logged as such, and nothing is left for a next daemon. */
  clear(): Promise<void> {
    return this.#file.clear();
  }

  #schedule(): void {
    this.#file.schedule(() => [...this.#calls.values()]);
  }
}

/** The calls a daemon that died left as running; none when there is no file or it does not read as a whole one. */
export async function readCallsInFlight(path: string): Promise<CallInFlight[]> {
  const parsed = fileSchema.safeParse(await readJournalFile(path));
  return parsed.success ? parsed.data.calls : [];
}
