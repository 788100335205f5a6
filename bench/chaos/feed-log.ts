/**
 * The watcher's log (watcher.ts), read back: by the next watcher, for the
 * cursor to resume from, and by the verdict, for the changes it was given.
 */

export interface FeedEntry {
  /** `j<id>` for a creation, `h<history id>` for a move. */
  key: string;
  jobId: number;
  cursor: string;
}

/** Complete lines only: a last line cut short by a kill has no newline yet. */
export function parseFeedLog(text: string): FeedEntry[] {
  const lines = text.split('\n');
  lines.pop();
  return lines
    .filter((l) => l.length > 0)
    .map((line) => {
      const [kind, key, job, cursor] = line.split(' ');
      if (kind !== 'C' || !key || !/^[jh]\d+$/.test(key) || !cursor || !Number.isInteger(Number(job))) throw new Error(`unreadable feed-log line ${JSON.stringify(line)}`);
      return { key, jobId: Number(job), cursor };
    });
}

/** The cursor of the last change logged, or null for an empty log. */
export function lastFeedCursor(text: string): string | null {
  return parseFeedLog(text).at(-1)?.cursor ?? null;
}
