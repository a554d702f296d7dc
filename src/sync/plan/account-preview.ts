import { namesAgree } from '../../model/person.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { messageOf } from '../../errors/evsync-error.js';
import type { PlatformUser } from '../../platform/response-schemas.js';
import { emailParam } from '../../platform/vendor.js';

/** How many new users a plan asks the platform about: a preview, one read each. */
export const ACCOUNTS_CHECKED = 50;

/** Looks a user up by e-mail on the platform (`GET /user/member?…[email]=`). */
export type AccountLookUp = (email: string) => Promise<PlatformUser | undefined>;

/**
 * What `evsync plan` says of the accounts a run would find by e-mail (docs/sync-engine.md,
 * "Who is who"): the first {@link ACCOUNTS_CHECKED} users it would create are looked up on
 * the platform; one that is there already is found and updated by the run (or refused,
 * when it is another key's person), so the platform's name is shown beside the source's.
 */
export class AccountPreview {
  private readonly creates: PlannedIntent[] = [];
  private total = 0;

  constructor(
    private readonly lookUp: AccountLookUp,
    private readonly vendor: string,
  ) {}

  /** Notes a chunk's work: its user creates, the first ones kept. */
  note(work: readonly PlannedIntent[]): void {
    for (const item of work) {
      if (item.kind !== 'user' || item.plannedAction !== 'create') continue;
      this.total += 1;
      if (this.creates.length < ACCOUNTS_CHECKED) this.creates.push(item);
    }
  }

  /** The lines for the plan: none when no user to create is on the platform already. */
  async lines(): Promise<string[]> {
    if (this.creates.length === 0) return [];
    const found: string[] = [];
    for (const item of this.creates) {
      const email = item.params[emailParam(this.vendor)];
      if (email === undefined || email === '') continue;
      let user: PlatformUser | undefined;
      try {
        user = await this.lookUp(email);
      } catch (error) {
        return [`Accounts: could not ask the platform who has the new users' e-mails (${messageOf(error)}).`];
      }
      if (user !== undefined) found.push(this.line(item, email, user));
    }
    if (found.length === 0) return [];
    const checked =
      this.creates.length < this.total
        ? `the first ${this.creates.length} of ${this.total}`
        : `all ${this.total}`;
    return [
      `Accounts: of ${checked} users to create, ${found.length} ${found.length === 1 ? 'is' : 'are'} on the platform already by e-mail (a run finds and updates them, or refuses another key's person):`,
      ...found,
    ];
  }

  private line(item: PlannedIntent, email: string, user: PlatformUser): string {
    const source = [item.params['user[first_name]'], item.params['user[last_name]']]
      .filter(Boolean)
      .join(' ');
    const platform = [user.first_name, user.last_name].filter(Boolean).join(' ');
    const own = new Set([item.key, ...(item.aliases ?? [])]);
    const others = (user.client_ids ?? []).filter((key) => !own.has(key));
    const verdict = namesAgree(source, platform)
      ? 'the same name'
      : others.length > 0
        ? `another name, and key "${others[0]}"'s account: a run refuses this row while that key is in the source or the ledger`
        : 'another name';
    return `  ${item.key} "${source}" <${email}> → platform user ${user.id} "${platform}": ${verdict}`;
  }
}
