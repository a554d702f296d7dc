import { isParentKind, type Intent, type IntentDependency } from '../../model/intent.js';
import { KeyRegistry } from '../key-registry.js';
import type { MappedItem } from '../mapped-item.js';

/** How many links that name a missing user or event are shown by name. */
const EXAMPLES = 3;

/** Links of one kind that name a user or event no step of the job creates. */
export interface DanglingLinks {
  /** The kind of the link (`speaker`, `schedule`…) and of what it names. */
  kind: Intent['kind'];
  parent: IntentDependency['kind'];
  /** Distinct missing users or events. */
  missing: number;
  examples: string[];
}

/**
 * Which users and events the links of a job name without any of its steps creating them:
 * at sync those links go only if the ledger already knows the user or event (an earlier
 * run), else they end skipped. `validate` works offline, so it says so rather than fails.
 * Keys are kept as hashes (about 12 bytes each), so a million-row file stays in budget.
 */
export class DependencyCheck {
  private readonly created = new KeyRegistry();
  /** Each missing-at-first-sight parent once, with the kind of link that named it. */
  private readonly wanted = new Map<string, KeyRegistry>();
  private readonly candidates = new Map<string, Array<{ row: number; dep: IntentDependency }>>();

  add(item: MappedItem): void {
    if (item.type !== 'intents' && item.type !== 'duplicate') return;
    for (const intent of item.intents) {
      if (isParentKind(intent.kind)) this.created.add(`${intent.kind}\u0000${intent.key}`, 1);
      for (const dep of intent.dependsOn) {
        const id = `${dep.kind}\u0000${dep.clientId}`;
        if (this.created.firstRow(id) !== undefined) continue;
        const group = `${intent.kind}\u0000${dep.kind}`;
        let wanted = this.wanted.get(group);
        if (wanted === undefined) this.wanted.set(group, (wanted = new KeyRegistry()));
        if (wanted.add(id, item.origin.row) !== undefined) continue;
        const examples = this.candidates.get(group) ?? [];
        // Kept beyond EXAMPLES: some may be created by a later row or step.
        if (examples.length < EXAMPLES * 4) {
          examples.push({ row: item.origin.row, dep });
          this.candidates.set(group, examples);
        }
      }
    }
  }

  /** What is still missing once every step has been read. */
  result(): DanglingLinks[] {
    const out: DanglingLinks[] = [];
    for (const [group, wanted] of this.wanted) {
      const [kind, parent] = group.split('\u0000') as [Intent['kind'], IntentDependency['kind']];
      let missing = 0;
      for (const { hash } of wanted.entries()) if (this.created.rowOf(hash) === undefined) missing++;
      if (missing === 0) continue;
      const examples = (this.candidates.get(group) ?? [])
        .filter(({ dep }) => this.created.firstRow(`${dep.kind}\u0000${dep.clientId}`) === undefined)
        .slice(0, EXAMPLES)
        .map(({ row, dep }) => `row ${row} → ${dep.kind} ${dep.clientId}`);
      out.push({ kind, parent, missing, examples });
    }
    return out;
  }
}

/** The note `validate` prints for links that name what the job does not create. */
export function formatDanglingLinks(dangling: readonly DanglingLinks[]): string {
  if (dangling.length === 0) return '';
  const lines = ['Links to users or events this job does not create:'];
  for (const group of dangling) {
    const what =
      group.missing === 1 ? `1 ${group.parent}` : `${group.missing.toLocaleString('en')} ${group.parent}s`;
    lines.push(`  ${group.kind} intents name ${what} that no step creates (${group.examples.join('; ')})`);
  }
  lines.push(
    '  At sync such a link goes only if the ledger already knows that user or event from an earlier run;',
    '  otherwise it ends skipped. Add the step that creates them, or check that an earlier run synced them.',
  );
  return lines.join('\n');
}
