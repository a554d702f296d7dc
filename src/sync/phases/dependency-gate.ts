import { CODE, type ErrorCode } from '../../errors/codes.js';
import type { KeyRefusal, KeyRemoval, Ledger } from '../../ledger/ledger.js';
import { dependencyKey, parentRefs, type IntentDependency, type ParentKind } from '../../model/intent.js';
import { KeyHolds } from './key-holds.js';

/** The error code of a dependent skipped because a parent failed or is unknown: data lost (exit 1). */
export const PARENT_MISSING = CODE.EVSYNC_PARENT_MISSING;
/** A dependent skipped because its parent was filtered out on purpose in this run: not a failure. */
export const PARENT_SKIPPED = CODE.EVSYNC_PARENT_SKIPPED;
/** A dependent skipped because a run deleted (or retired) its parent: not a failure. */
export const PARENT_DELETED = CODE.EVSYNC_PARENT_DELETED;
/** A dependent skipped because its user's key is held as now another person: data lost (exit 1). */
export const PARENT_HELD = CODE.EVSYNC_PARENT_HELD;
/** The codes of dependents skipped for a parent that is not there: data lost. */
export const PARENT_LOST: readonly ErrorCode[] = [PARENT_MISSING, PARENT_HELD];

/**
 * Why a parent is not there: it `failed` in this run, was `refused` by the platform when a
 * run last sent it and no run synced it since (it is in this run, not sent yet), is `held` (a
 * run refused its user as now another person, `key-holds.ts`), was `filtered` out on purpose
 * in this run (a `when:` condition), was `deleted` (or retired) by a run, or is `unknown` to
 * the run and to the ledger. `failed`, `refused`, `held` and `unknown` are data lost; the
 * others were meant.
 */
export type MissingWhy = 'failed' | 'refused' | 'held' | 'filtered' | 'deleted' | 'unknown';

/** Why a dependent intent cannot be sent, or why a schedule goes without one of its events. */
export interface MissingParent {
  parent: IntentDependency;
  why: MissingWhy;
  /** What became of the parent, as a clause: `event "s1" was deleted by run R on 2026-05-01`. */
  reason: string;
  /** The skipped dependent's message. */
  message: string;
  /** The skipped dependent's error code. */
  code: ErrorCode;
}

/** A successful parent is forgotten once the id map knows it: see `settle`. */
const SUCCEEDED = { ok: true } as const;

/** Data lost first: the reason a dependent with several missing parents is skipped for. */
const SEVERITY: readonly MissingWhy[] = ['failed', 'refused', 'held', 'unknown', 'filtered', 'deleted'];

/** Looks up, for parents unknown to the run and the id map, the run that deleted or retired them. */
export type RemovalLookup = (
  parents: readonly IntentDependency[],
) => Promise<ReadonlyMap<string, KeyRemoval>>;

/**
 * Decides whether a dependent intent may go: each parent must have succeeded in this run,
 * or (when this run did not carry it) be known to the id map from an earlier run. When one
 * is not, it says why, truthfully (docs/sync-engine.md, "Phases"): failed in this run,
 * filtered out on purpose in this run, deleted by a run (the ledger's `deleted` result names
 * it), or in no source and unknown to the ledger; a schedule's pick also counts as lost when
 * the platform refused the event the last time it was sent (`refused`).
 */
export class DependencyGate {
  private readonly inRun = new Map<string, { ok: boolean; reason?: string }>();
  /** Parents a `when:` condition left out of this run: key → the condition's reason. */
  private readonly leftOut = new Map<string, string>();
  /** What the ledger said about unknown parents (null: no removal recorded). */
  private readonly removals = new Map<string, KeyRemoval | null>();
  /** Parents no run synced whose newest result is the platform's 422: key → that refusal. */
  private readonly refusals = new Map<string, KeyRefusal>();

  constructor(
    /** Parents of this run that have not ended yet are declared so they are not "unknown". */
    private readonly knownId: (dep: IntentDependency) => boolean,
    /** Without it, a parent the run does not know reads as unknown. */
    private readonly lookupRemovals?: RemovalLookup,
    /** Keys no dependent may reach, whatever the id map says; the run keeps them. */
    readonly holds: KeyHolds = new KeyHolds(),
  ) {}

  /** Records a parent's outcome in this run. */
  settle(dep: IntentDependency, ok: boolean, reason?: string): void {
    // Sent in this run: its outcome here, not its last refusal, says whether it is there.
    if (this.refusals.size > 0) this.refusals.delete(dependencyKey(dep));
    // A success the id map knows reads as known already: not kept, so that a run of a
    // million users does not keep a million entries here (docs/sync-engine.md, "Memory").
    if (ok && this.knownId(dep)) {
      // Every unchanged user of a night passes here: no key string made when nothing is kept.
      if (this.inRun.size > 0) this.inRun.delete(dependencyKey(dep));
    } else this.inRun.set(dependencyKey(dep), ok ? SUCCEEDED : { ok, reason: reason ?? 'it failed' });
  }

  /**
   * A user or event that synced in this run, or needed no call (unchanged): settled under
   * each of its keys, which are let go if they were held (`key-holds.ts`).
   */
  async passed(parent: {
    kind: ParentKind;
    key: string;
    aliases?: readonly string[] | undefined;
  }): Promise<void> {
    const refs = parentRefs(parent);
    for (const ref of refs) this.settle(ref, true);
    if (this.holds.any) await this.holds.release(refs);
  }

  /** Whether the id map knows the parent (from an earlier run, or this one). */
  known(dep: IntentDependency): boolean {
    return this.knownId(dep);
  }

  /**
   * Records a parent that a row of this run would have synced, had a `when:` condition not
   * left the row out on purpose. It counts only when the parent is otherwise missing: the
   * same person may come valid from another step, or be known from an earlier run.
   */
  filtered(dep: IntentDependency, reason: string): void {
    this.leftOut.set(dependencyKey(dep), reason);
  }

  /**
   * Records a parent of this run that the platform refused (422) when a run last sent it,
   * and that no run has synced since (`Ledger.lastRefusals`): until this run settles it, a
   * schedule's pick of it is lost, as the pick of an event whose row failed
   * (docs/sync-engine.md, "Phases"). Asked of the plan, before the parent is sent.
   */
  refused(dep: IntentDependency, refusal: KeyRefusal): void {
    this.refusals.set(dependencyKey(dep), refusal);
  }

  /**
   * The first missing parent, or undefined when every parent is there. Synchronous: it does
   * not ask the ledger what deleted a parent (see {@link missing}).
   */
  check(dependsOn: readonly IntentDependency[]): MissingParent | undefined {
    return worst(this.missingNow(dependsOn));
  }

  /**
   * Every missing parent, each with why; parents unknown to the run and the id map are looked
   * up in the ledger (the run that deleted or retired them), once per parent.
   */
  async missing(dependsOn: readonly IntentDependency[]): Promise<MissingParent[]> {
    const found = this.missingNow(dependsOn);
    const ask = found.filter(
      (missing) => missing.why === 'unknown' && !this.removals.has(dependencyKey(missing.parent)),
    );
    if (ask.length > 0 && this.lookupRemovals) {
      const answers = await this.lookupRemovals(ask.map((missing) => missing.parent));
      for (const { parent } of ask)
        this.removals.set(dependencyKey(parent), answers.get(dependencyKey(parent)) ?? null);
    }
    return found.map((missing) => {
      if (missing.why !== 'unknown') return missing;
      const removal = this.removals.get(dependencyKey(missing.parent));
      return removal ? removed(missing.parent, removal) : missing;
    });
  }

  /** The first missing parent by severity, with removals looked up (see {@link missing}). */
  async first(dependsOn: readonly IntentDependency[]): Promise<MissingParent | undefined> {
    return worst(await this.missing(dependsOn));
  }

  private missingNow(dependsOn: readonly IntentDependency[]): MissingParent[] {
    const found: MissingParent[] = [];
    for (const parent of dependsOn) {
      const key = dependencyKey(parent);
      const outcome = this.inRun.get(key);
      if (outcome?.ok) continue;
      const name = nameOf(parent);
      if (outcome) {
        const reason = `${name} did not sync in this run: ${outcome.reason}`;
        found.push({
          parent,
          why: 'failed',
          reason,
          message: `skipped because ${reason}`,
          code: PARENT_MISSING,
        });
        continue;
      }
      const hold = this.holds.of(parent);
      if (hold !== undefined) {
        const day = hold.heldAt.toISOString().slice(0, 10);
        const reason =
          `${name} is held: run ${hold.runId} of job "${hold.jobName}" refused its user on ${day} (${hold.errorCode}), ` +
          'as its row there names another person than the one its platform account is';
        found.push({
          parent,
          why: 'held',
          reason,
          message:
            `skipped because ${reason}: sent, it would reach that other person's account. ` +
            `Fix the row in job "${hold.jobName}" (or give the new person a client_id of their own); once the user syncs there, the next run of this job sends this.`,
          code: PARENT_HELD,
        });
        continue;
      }
      // Before the id map: a plan's gate counts the run's own parents as known, and this
      // one is in the run, sent again, most likely to be refused again.
      const refusal = this.refusals.get(key);
      if (refusal !== undefined) {
        const day = refusal.at.toISOString().slice(0, 10);
        const reason = `${name} was refused by the platform in run ${refusal.runId} on ${day}, and no run has synced it since (${refusal.message})`;
        found.push({
          parent,
          why: 'refused',
          reason,
          message: `skipped because ${reason}`,
          code: PARENT_MISSING,
        });
        continue;
      }
      if (this.knownId(parent)) continue;
      const removal = this.removals.get(key);
      const filter = this.leftOut.get(key);
      if (filter !== undefined) {
        const reason = `${name} was filtered out on purpose in this run (${filter})`;
        found.push({
          parent,
          why: 'filtered',
          reason,
          message: `skipped because ${reason}`,
          code: PARENT_SKIPPED,
        });
      } else if (removal) found.push(removed(parent, removal));
      else {
        const reason = `${name} is unknown: no valid row of this run has it, and the ledger has no run that synced it`;
        found.push({
          parent,
          why: 'unknown',
          reason,
          message: `skipped because ${reason}. Fix or add its row, or sync it first.`,
          code: PARENT_MISSING,
        });
      }
    }
    return found;
  }
}

/** Whether a dependent skipped for this parent is data lost (exit 1), not something meant. */
export function isLoss(why: MissingWhy): boolean {
  return why === 'failed' || why === 'refused' || why === 'held' || why === 'unknown';
}

function removed(parent: IntentDependency, removal: KeyRemoval): MissingParent {
  const day = removal.at.toISOString().slice(0, 10);
  const reason =
    removal.action === 'retired'
      ? `${nameOf(parent)} was retired by run ${removal.runId} on ${day} (its platform record is another key's)`
      : `${nameOf(parent)} was deleted by run ${removal.runId} on ${day}`;
  return { parent, why: 'deleted', reason, message: `skipped because ${reason}`, code: PARENT_DELETED };
}

function worst(found: readonly MissingParent[]): MissingParent | undefined {
  for (const why of SEVERITY) {
    const hit = found.find((missing) => missing.why === why);
    if (hit) return hit;
  }
  return undefined;
}

function nameOf(parent: IntentDependency): string {
  return `${parent.kind} "${parent.clientId}"`;
}

/** A {@link RemovalLookup} that asks the ledger (`Ledger.lastRemovals`), one query per kind. */
export function removalLookup(ledger: Pick<Ledger, 'lastRemovals'>): RemovalLookup {
  return async (parents) => {
    const found = new Map<string, KeyRemoval>();
    for (const kind of ['user', 'event'] as const) {
      const keys = parents.filter((parent) => parent.kind === kind).map((parent) => parent.clientId);
      if (keys.length === 0) continue;
      for (const [key, removal] of await ledger.lastRemovals(kind, keys))
        found.set(dependencyKey({ kind, clientId: key }), removal);
    }
    return found;
  };
}
