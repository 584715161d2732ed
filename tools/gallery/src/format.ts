/** Human-readable figures for the page: file sizes, dates, counts. */

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value >= 10 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`;
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

/** A <time> element: the machine-readable ISO value plus a readable UTC rendering. */
export function timeElement(iso: string): HTMLTimeElement {
  const time = document.createElement('time');
  time.dateTime = iso;
  const date = new Date(iso);
  time.textContent = Number.isNaN(date.getTime()) ? iso : `${dateFormat.format(date)} UTC`;
  return time;
}

export function plural(count: number, one: string, many: string): string {
  return `${count.toLocaleString()} ${count === 1 ? one : many}`;
}

/**
 * A pepe's label, used as title and as the image's alt text: its description; without one,
 * its tags (what a screen-reader user can still learn about it); else its id's first block.
 */
export function pepeTitle(pepe: { id: string; description: string | null; tags: string[] | null }): string {
  if (pepe.description) return pepe.description;
  if (pepe.tags?.length) return `Pepe tagged ${pepe.tags.join(', ')}`;
  return `Pepe ${pepe.id.slice(0, 8)}`;
}
