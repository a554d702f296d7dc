import { CODE } from '../../errors/codes.js';
import type { IntentDependency } from '../../model/intent.js';

/** The error code of a dependent skipped because a parent failed or is unknown. */
export const PARENT_MISSING = CODE.EVSYNC_PARENT_MISSING;

/** Why a dependent intent cannot be sent. */
export interface MissingParent {
  parent: IntentDependency;
  message: string;
}

const SUCCEEDED = { ok: true } as const;

/**
 * Decides whether a dependent intent may go: each parent must have succeeded in this run,
 * or (when this run did not carry it) be known to the id map from an earlier run.
 */
export class DependencyGate {
  private readonly inRun = new Map<string, { ok: boolean; reason?: string }>();

  constructor(
    /** Parents of this run that have not ended yet are declared so they are not "unknown". */
    private readonly knownId: (dep: IntentDependency) => boolean,
  ) {}

  /** Records a parent's outcome in this run. */
  settle(dep: IntentDependency, ok: boolean, reason?: string): void {
    // A success the id map knows reads as known already: not kept, so that a run of a
    // million users does not keep a million entries here (docs/sync-engine.md, "Memory").
    if (ok && this.knownId(dep)) this.inRun.delete(keyOf(dep));
    else this.inRun.set(keyOf(dep), ok ? SUCCEEDED : { ok, reason: reason ?? 'it failed' });
  }

  /** The first missing parent, or undefined when every parent is there. */
  check(dependsOn: readonly IntentDependency[]): MissingParent | undefined {
    for (const parent of dependsOn) {
      const outcome = this.inRun.get(keyOf(parent));
      if (outcome?.ok) continue;
      const name = `${parent.kind} "${parent.clientId}"`;
      if (outcome)
        return { parent, message: `skipped because ${name} did not sync in this run: ${outcome.reason}` };
      if (!this.knownId(parent)) {
        return {
          parent,
          message: `skipped because ${name} is unknown: no valid row of this run has it and it was never synced. Fix or add its row, or sync it first.`,
        };
      }
    }
    return undefined;
  }
}

function keyOf(dep: IntentDependency): string {
  return `${dep.kind}\u0000${dep.clientId}`;
}
