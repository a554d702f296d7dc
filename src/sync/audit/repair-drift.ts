import { isRepairable } from './drift.js';
import type { IntentKind } from '../../model/intent.js';
import type { EngineDeps } from '../execute/engine-deps.js';
import type { RunSummary } from '../execute/run-summary.js';
import type { LoadedJob } from '../job-file.js';
import { depsForPlatform } from '../runs/conference-scope.js';
import { runJob } from '../runs/run-job.js';
import type { DriftEntry } from './drift.js';

/**
 * Puts the platform back as the source says (docs/audit.md, "Repair"): the ledger forgets
 * that it synced each missing or changed key (its synced hash; a user's is made stale, so
 * that what was last sent under it stays for the identity checks), then the job runs as usual,
 * recorded with trigger `audit`. The plan sends exactly those keys again, plus anything the
 * source changed since the last run:
 * - a changed user or event is updated (the id map still knows it);
 * - a missing user is updated, the platform answers 404, and the processor creates it
 *   again; a user still on the platform elsewhere is attached (203), never duplicated;
 * - a missing event is created again the same way, a missing speaker link added again;
 * - a missing user's schedule is replaced again: it went with the user, and §4 gives no
 *   read to see it (its RSVPs and contacts are not restored: docs/audit.md, "Limits").
 * Extras are never deleted: they carry no key of this job. Nothing else is forgotten, so
 * an audit that found nothing makes a run that sends nothing.
 */
export async function repairDrift(
  engine: EngineDeps,
  job: LoadedJob,
  drift: readonly DriftEntry[],
  options: { force?: boolean } = {},
): Promise<RunSummary> {
  const deps = await depsForPlatform(engine);
  const byKind = new Map<IntentKind, string[]>();
  const forget = (kind: IntentKind, key: string): void => {
    const keys = byKind.get(kind) ?? [];
    keys.push(key);
    byKind.set(kind, keys);
  };
  for (const entry of drift) {
    if (!isRepairable(entry)) continue;
    forget(entry.kind, entry.key);
    // A user removed from the conference lost its schedule with it (§4.2 rule 4), and a
    // schedule cannot be read back: replace it again (PUT /event/schedule is idempotent).
    if (entry.kind === 'user' && entry.type === 'missing') forget('schedule', entry.key);
  }
  for (const [kind, keys] of byKind) {
    // A user's synced hash is made stale, not removed: the result it points at is the person
    // last sent under the key, which the user processor compares a row with
    // (`refuseKeyOfAnother`). Removed, a ticket handed on was "repaired" onto the old
    // holder's account, and the key's hold let go. Other kinds have no such check, and a
    // link without a hash is added again rather than removed and added.
    if (kind === 'user') await deps.ledger.staleHashes(kind, keys);
    else await deps.ledger.removeHashes(kind, keys);
    deps.logger?.info({ kind, keys: keys.length }, 'audit repair: these keys will be sent again');
  }
  return runJob(deps, { job, trigger: 'audit', force: options.force ?? false });
}
