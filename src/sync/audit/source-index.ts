import type { Intent, IntentKind } from '../../model/intent.js';
import type { Logger } from '../../log/logger.js';
import { streamCollected } from '../collect/collect-intents.js';
import type { Erasures } from '../collect/erasures.js';
import type { LoadedJob } from '../job-file.js';
import type { AuditedKind, SourceField } from './audited-fields.js';
import { sourceFields } from './audited-fields.js';
import { emailParam } from '../../platform/vendor.js';

/** A user or event as the source says it now: only the fields the platform shows back. */
export interface SourceObject {
  key: string;
  /** A merged user's other client_ids (docs/sync-engine.md, "One person, many sources"). */
  aliases: readonly string[];
  fields: SourceField[];
  /**
   * A user's e-mail as the source says it (not compared: §2.3 shows none), to tell another
   * person under the key from a hand edit (`another_person`, audit-users.ts).
   */
  email?: string | undefined;
}

/**
 * A {@link SourceObject} packed for the index: the params as a list shared by every object
 * of the same shape, the values joined in one string. At 100,000 generated users this
 * halved the audit's heap (126 MB to 57 MB after GC: a field as an object of two strings
 * costs more than its characters; docs/audit.md, "Memory and calls"). `fields` unpacks on
 * demand, for the one comparison of the object.
 */
class PackedSourceObject implements SourceObject {
  constructor(
    readonly key: string,
    readonly aliases: readonly string[],
    private readonly params: readonly string[],
    private readonly values: string,
    readonly email: string | undefined,
  ) {}

  get fields(): SourceField[] {
    const values = this.params.length === 0 ? [] : this.values.split(SEPARATOR);
    return this.params.map((param, at) => ({ param, value: values[at] ?? '' }));
  }
}

/** Between packed values; a value that holds it is kept unpacked. */
const SEPARATOR = '\u0000';

/** A speaker link the source asks for. */
export interface SourceLink {
  key: string;
  /** The user by client_id, or by platform id (`speaker[user_id]`). */
  userClientId: string | undefined;
  userId: number | undefined;
  /** `speaker[type_name]`, lower case; `speaker` when the source gives none (§4.4). */
  type: string;
}

/** The kinds §4 gives no read for: an audit names them, and passes none of them as in sync. */
export const NOT_AUDITABLE: readonly IntentKind[] = ['schedule', 'rsvp', 'contact', 'check_in'];

/**
 * What the job's sources say now, read as a run reads them (`streamCollected`: the same
 * mappings, the same merge of people), kept in the small form the audit compares: per user
 * and event only the params the platform shows back, normalised (docs/audit.md, "Memory").
 */
export class SourceIndex {
  readonly users = new Map<string, SourceObject>();
  readonly events = new Map<string, SourceObject>();
  /** Speaker links by their event's client_id. */
  readonly linksByEvent = new Map<string, SourceLink[]>();
  /** Source intents of the kinds without a read endpoint, and of removals, per kind. */
  readonly notAuditable = new Map<IntentKind, number>();
  private readonly userKeyByClientId = new Map<string, string>();
  /** One list of params per shape (the generated bench users have 11 shapes). */
  private readonly shapes = new Map<string, readonly string[]>();
  private links = 0;

  /** `emailParam`: the users' e-mail param (the vendor's word), kept beside their fields. */
  constructor(private readonly emailParam?: string) {}

  /** The user key a platform client_id names (its key or a merged user's alias). */
  userKeyOf(clientId: string): string | undefined {
    return this.userKeyByClientId.get(clientId);
  }

  get linkCount(): number {
    return this.links;
  }

  add(intent: Intent): void {
    if (intent.op !== 'upsert' || NOT_AUDITABLE.includes(intent.kind)) {
      this.notAuditable.set(intent.kind, (this.notAuditable.get(intent.kind) ?? 0) + 1);
      return;
    }
    if (intent.kind === 'user' || intent.kind === 'event') return this.addObject(intent.kind, intent);
    if (intent.kind === 'speaker') this.addLink(intent);
  }

  private addObject(kind: AuditedKind, intent: Intent): void {
    const email = kind === 'user' && this.emailParam ? intent.params[this.emailParam]?.trim() : undefined;
    const object = this.packed(
      intent.key,
      intent.aliases ?? [],
      sourceFields(kind, intent.params),
      email || undefined,
    );
    // A later step's intent of a key takes the earlier one's place, as in a run (a user's
    // repeat never comes: `UsersApart`).
    if (kind === 'event') {
      this.events.set(intent.key, object);
      return;
    }
    this.users.set(intent.key, object);
    this.userKeyByClientId.set(intent.key, intent.key);
    for (const alias of object.aliases) this.userKeyByClientId.set(alias, intent.key);
  }

  private packed(
    key: string,
    aliases: readonly string[],
    fields: SourceField[],
    email: string | undefined,
  ): SourceObject {
    if (fields.some((field) => field.value.includes(SEPARATOR))) return { key, aliases, fields, email };
    const params = fields.map((field) => field.param);
    const shape = params.join('\n');
    let shared = this.shapes.get(shape);
    if (shared === undefined) this.shapes.set(shape, (shared = params));
    // join() copies the values into one flat string: none keeps a source chunk alive.
    return new PackedSourceObject(
      key,
      aliases,
      shared,
      fields.map((field) => field.value).join(SEPARATOR),
      email,
    );
  }

  private addLink(intent: Intent): void {
    const event = intent.params.client_id;
    if (event === undefined || event === '') return;
    const byId = intent.params['speaker[user_id]'];
    const link: SourceLink = {
      key: intent.key,
      userClientId: intent.params['speaker[user_client_id]'] || undefined,
      userId: byId ? Number(byId) : undefined,
      type: (intent.params['speaker[type_name]'] || 'speaker').toLowerCase(),
    };
    const list = this.linksByEvent.get(event) ?? [];
    const at = list.findIndex((known) => known.key === link.key);
    if (at >= 0) list[at] = link;
    else {
      list.push(link);
      this.links += 1;
    }
    this.linksByEvent.set(event, list);
  }
}

/** Reads the job's sources into a {@link SourceIndex}; invalid rows are left out (a run would not send them). */
export async function indexSources(
  job: LoadedJob,
  options: { vendor: string; logger?: Logger; erasures: Erasures },
): Promise<SourceIndex> {
  const index = new SourceIndex(emailParam(options.vendor));
  for await (const row of streamCollected(job, options)) {
    for (const intent of row.intents) index.add(intent);
  }
  return index;
}
