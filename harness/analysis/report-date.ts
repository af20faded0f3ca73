// The day a run's dated report carries: its nightly key when that key is a date, else the UTC day the run started.

/** `key` when it is a calendar date written yyyy-mm-dd, else undefined. */
export function keyDate(key: string | undefined): string | undefined {
  if (key === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(key)) return undefined;
  const t = Date.parse(`${key}T00:00:00.000Z`);
  return Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== key ? undefined : key;
}

/**
 * The report's day (summary.date, the dated folder's name): the night key (`soak run --seed-from`) when it is a
 * yyyy-mm-dd date, so a night that starts before midnight is filed under its night; else the run start's UTC day.
 */
export function reportDate(startedAt: string, seedKey?: string): string {
  return keyDate(seedKey) ?? startedAt.slice(0, 10);
}

/** What a report's day is counted in, for its label: the night key, or the UTC day the run started. */
export function reportDateBasis(date: string, seedKey?: string): 'night key' | 'UTC' {
  return keyDate(seedKey) === date ? 'night key' : 'UTC';
}
