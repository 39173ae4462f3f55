import * as z from 'zod/mini';
import '../../../shared/zodMessages.js';
import { JournalFile, parseJournalText, readJournalFile } from '../process/JournalFile.js';

const journaledPageSchema = z.lazy(() => z.object({
  /** Chrome's tab id: what a new daemon finds the page by, whatever id its workers give it. */
  tabId: z.string(),
  origin: z.enum(['created', 'attached', 'opened']),
  url: z.string(),
  title: z.string(),
  lastSelectedAt: z.number(),
  current: z.boolean(),
}));

const journaledSessionSchema = z.lazy(() => z.object({
  id: z.string(),
  label: z.nullable(z.string()),
  createdAt: z.number(),
  paused: z.boolean(),
  /** Whether a client held the session: its client reconnects and binds it again. */
  bound: z.boolean(),
  /** The last snapshot epoch: a restored session starts above it, so no token from before names a new snapshot. */
  epoch: z.int(),
  pages: z.array(journaledPageSchema),
}));

const journalSchema = z.lazy(() => z.object({ version: z.literal(1), sessions: z.array(journaledSessionSchema) }));

export type JournaledSession = z.infer<typeof journaledSessionSchema>;
export type JournaledPage = z.infer<typeof journaledPageSchema>;

/**
 * How long changes gather before one write when no reply waits on them (a reply does: see `settle`), so a burst of
 * changes costs one write.
 */
export const JOURNAL_DEBOUNCE_MS = 50;

/**
 * What each session of a profile is (id, label, its tabs by Chrome tab id, its current page, bindings and pauses),
 * kept under the profile's data folder so that a daemon that adopts the Chrome of one that died can restore them.
 */
export class SessionJournal extends JournalFile<readonly JournaledSession[]> {
  constructor(path: string, onError: (error: unknown) => void) {
    super(path, onError, JOURNAL_DEBOUNCE_MS, (sessions) => ({ version: 1, sessions }));
  }
}

/** The sessions a journal holds; none when there is no journal or it does not read as a whole one. */
export async function readSessionJournal(path: string): Promise<JournaledSession[]> {
  return sessionsOf(await readJournalFile(path));
}

export function parseJournal(text: string): JournaledSession[] {
  return sessionsOf(parseJournalText(text));
}

function sessionsOf(body: unknown): JournaledSession[] {
  const parsed = journalSchema.safeParse(body);
  return parsed.success ? parsed.data.sessions : [];
}
