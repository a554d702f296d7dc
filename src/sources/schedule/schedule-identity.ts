import { createHash } from 'node:crypto';
import type { Logger } from '../../log/logger.js';
import { idString, normalizeText } from './schedule-text.js';

/**
 * The ids a c3voc/frab export's sessions and people get (docs/sources.md, "Identities in
 * merged schedules"). Big events merge several sub-schedules into one export: numeric
 * ids collide there, while guids do not, and person ids may stand for several people.
 */

/**
 * Session ids: the `guid` when the export has one, else the `id`. A talk given in several
 * time slots (the same guid at another start) is one session per slot: the first slot in
 * the export keeps the guid, a later one gets `<guid>@<start>` (`…@20191228T1430`).
 */
export class SlotIds {
  private readonly firstStart = new Map<string, string>();

  id(guid: unknown, id: unknown, start: string | undefined): string {
    const base = idString(guid) || idString(id);
    if (base === '' || idString(guid) === '') return base;
    const at = start ?? '';
    const first = this.firstStart.get(base);
    if (first === undefined) {
      this.firstStart.set(base, at);
      return base;
    }
    // The same slot twice is a repeated entry: the same id, which the mapping reports.
    return first === at || at === '' ? base : `${base}@${compactTime(at)}`;
  }
}

/** `2019-12-28T14:30:00+01:00` → `20191228T1430`: the slot's wall-clock time, short. */
function compactTime(iso: string): string {
  return iso.slice(0, 16).replace(/[-:]/g, '');
}

interface PersonFields {
  id?: unknown;
  code?: unknown;
  guid?: unknown;
  public_name?: unknown;
  full_public_name?: unknown;
  name?: unknown;
}

const fold = (name: string): string => name.normalize('NFC').replace(/\s+/g, ' ').trim().toLowerCase();

/**
 * Person ids: pretalx's numeric `id` when the export writes one beside the `code` (its XML
 * export of the same schedule writes only that id, so both formats give the same key), else
 * the `code`, else the `guid`, else the `id`. When one id carries
 * several names in the export (a merged schedule where hundreds of people share id `0`),
 * it is not one person: each name gets its own id, `<id>~<hash of the name>`, so that
 * nobody is merged into another's user or speaker link. A person with no id at all is
 * named by their name alone (`~<hash>`). What was ambiguous is logged.
 */
export class PersonIds {
  private readonly ambiguous = new Map<string, number>();

  constructor(people: Iterable<PersonFields>) {
    const names = new Map<string, Set<string>>();
    for (const person of people) {
      const key = rawId(person);
      const set = names.get(key) ?? new Set<string>();
      set.add(fold(nameOf(person)));
      names.set(key, set);
    }
    for (const [key, set] of names) if (key !== '' && set.size > 1) this.ambiguous.set(key, set.size);
  }

  id(person: PersonFields): string {
    const key = rawId(person);
    const name = fold(nameOf(person));
    if (key !== '' && !this.ambiguous.has(key)) return key;
    if (name === '') return key;
    return `${key}~${createHash('sha256').update(name).digest('hex').slice(0, 10)}`;
  }

  /** Says which ids stood for several names (at most five named), when any did. */
  report(source: string, logger: Logger | undefined): void {
    if (this.ambiguous.size === 0) return;
    const worst = [...this.ambiguous].sort((a, b) => b[1] - a[1]);
    logger?.warn(
      {
        source,
        ids: this.ambiguous.size,
        examples: worst.slice(0, 5).map(([id, count]) => `id ${id}: ${count} names`),
      },
      'some person ids of the export stand for several names (a merged schedule): each name is taken as its own person, with id <id>~<hash of the name>; people of the same name under such an id are taken as one',
    );
  }
}

function rawId(person: PersonFields): string {
  const code = idString(person.code);
  const numeric = idString(person.id);
  if (code !== '' && /^\d+$/.test(numeric)) return numeric;
  return code || idString(person.guid) || numeric;
}

/** The name a person is shown under, as the speaker record's `full_name` reads it. */
export function nameOf(person: PersonFields): string {
  const text = (value: unknown): string => (typeof value === 'string' ? normalizeText(value) : '');
  return text(person.public_name) || text(person.full_public_name) || text(person.name);
}
