import { CODE } from '../../errors/codes.js';
import type { IntentKind } from '../../model/intent.js';
import { INTENT_KINDS } from '../../model/intent.js';
import { describeOrigin, type RowOrigin } from '../../model/row-origin.js';
import { LossTally, reasonKind } from '../../mapping/validate/loss-tally.js';
import type { MergeReport } from '../collect/merge-people.js';
export { skippedLine } from './skipped-line.js';
import { CHECK_IN_HELD_BACK } from './lost-check-ins.js';
import type { RunResultCounts } from '../../model/result-records.js';
import type { HeldDeletes, RowResult, SyncPlan } from './sync-plan.js';
import { labelId } from './mirror-deletes.js';

export const PLAN_COLUMNS = [
  'create',
  'update',
  'delete',
  'retire',
  'unchanged',
  'invalid',
  'skipped',
  'held',
] as const;
export type PlanColumn = (typeof PLAN_COLUMNS)[number];
/**
 * Shown only when some row is in it: intents an operator must decide on (lost check-ins),
 * keys mirror mode retires (their platform record is another source key's).
 */
export const OPTIONAL_COLUMNS: ReadonlySet<PlanColumn> = new Set(['retire', 'held']);

export interface PlanSummary {
  counts: Partial<Record<IntentKind, Partial<Record<PlanColumn, number>>>>;
  /** The first few intents of each (kind, column), for a person to check. */
  examples: Array<{ kind: IntentKind; column: PlanColumn; key: string; where: string; note?: string }>;
  total: number;
  planMs: number;
  /** What a person must know before running it: deletes held back, check-ins held back. */
  notices: string[];
  /** How the sources decided who is who (a joined speaker list's matches and conflicts). */
  identity?: string[];
  /** User updates a run refuses as now another person (`IdentityPreview`): they fail (exit 1). */
  refusedPeople?: number;
  /** One line per kind that loses most of its rows for one reason, with the fix. */
  losses: string[];
  /** People merged across steps (docs/sync-engine.md, "One person, many sources"). */
  merged?: MergeReport;
  /**
   * Of the `skipped` column: how many were meant, how many repeated a row (`on_duplicate`),
   * how many are data lost (see `skippedLine`).
   */
  skipped?: {
    onPurpose: number;
    lost: number;
    duplicates?: number;
    /** Rows giving another person's e-mail (`MAPPING_SHARED_EMAIL`), failed or left out. */
    sharedEmails?: number;
    /** Rows naming a person erased with `evsync forget` (`EVSYNC_ERASED`). */
    suppressed?: number;
  };
  /** A full run's plan (`--full`): rows the ledger says are synced are sent too. */
  full?: true;
  /**
   * Rows sent without an optional field they got wrong (docs/mapping.md, "Optional
   * fields"), with the first few messages.
   */
  warnings?: { rows: number; examples: string[] };
}

/**
 * Said above a full run's plan and its summary (docs/sync-engine.md, "Full runs"), so that
 * nobody reads its updates as changes in the source.
 */
export const FULL_RUN_LINE =
  'Full run: every row is sent, whatever the ledger says was synced (check-ins posted before are not posted again).';

/**
 * Skips that were meant: a `when:` condition left the row out, or a link names a user or
 * event that one left out or a run deleted. They do not make the exit code 1.
 */
export const SKIPPED_ON_PURPOSE: ReadonlySet<string> = new Set([
  CODE.EVSYNC_ROW_SKIPPED,
  CODE.EVSYNC_PARENT_SKIPPED,
  CODE.EVSYNC_PARENT_DELETED,
]);
/**
 * Skips that are data lost: a value a row needs is empty, a user or event failed, is held
 * or is unknown, a schedule's pick is of such an event (exit 1).
 */
export const SKIPPED_FOR_MISSING_DATA: ReadonlySet<string> = new Set([
  CODE.EVSYNC_ROW_INCOMPLETE,
  CODE.EVSYNC_PARENT_MISSING,
  CODE.EVSYNC_PARENT_HELD,
  CODE.EVSYNC_SCHEDULE_PICKS_MISSING,
]);

/**
 * The exit code the run of this plan would end with if every call succeeded: 1 when rows
 * are invalid or skipped for missing data (README, exit codes), 0 otherwise. What
 * `run --dry-run` exits with.
 */
export function planExitCode(summary: Pick<PlanSummary, 'counts' | 'skipped' | 'refusedPeople'>): 0 | 1 {
  const invalid = Object.values(summary.counts).reduce((sum, columns) => sum + (columns?.invalid ?? 0), 0);
  return invalid > 0 || (summary.skipped?.lost ?? 0) > 0 || (summary.refusedPeople ?? 0) > 0 ? 1 : 0;
}

/** Counts per kind and planned action, with the first examples of each: what `evsync plan` prints. */
export function summarizePlan(plan: SyncPlan, examplesPerGroup = 3, merged?: MergeReport): PlanSummary {
  const tally = new PlanTally(examplesPerGroup);
  tally.add(plan);
  if (merged) tally.mergedPeople(merged);
  if (plan.heldDeletes) tally.heldDeletes(plan.heldDeletes);
  return tally.summary(plan.planMs);
}

/**
 * Loss lines for what a run's dependency gate skipped while it was sent (`missing`: the
 * results skipped with `PARENT_MISSING`, per kind), added to `losses` for the kinds that
 * have none yet. A streamed plan cannot say it at plan time: a link's user may come in a
 * later chunk of the source, or fail when it is sent.
 */
export function withParentLosses(
  losses: readonly string[],
  counts: RunResultCounts,
  missing: RunResultCounts,
): string[] {
  const tally = new LossTally();
  for (const kind of INTENT_KINDS) {
    const skipped = missing[kind]?.skipped ?? 0;
    if (skipped === 0 || losses.some((line) => line.startsWith(`${kind}: `))) continue;
    const total = Object.values(counts[kind] ?? {}).reduce((all, n) => all + (n ?? 0), 0);
    tally.add(kind, 'kept', '', '', Math.max(0, total - skipped));
    tally.add(
      kind,
      'skipped',
      'the user or event they need is neither synced in this run nor known from an earlier one',
      'Make those sync first (see why their rows are left out), then run again',
      skipped,
    );
  }
  return [...losses, ...tally.lines()];
}

/**
 * A plan's summary built part by part: a streamed run adds each chunk of its plan as it is
 * made, so the summary never needs the whole plan in memory.
 */
export class PlanTally {
  private readonly counts: PlanSummary['counts'] = {};
  private readonly examples: PlanSummary['examples'] = [];
  private readonly losses = new LossTally();
  private total = 0;
  private heldCheckIns = 0;
  private onPurpose = 0;
  private lost = 0;
  private duplicates = 0;
  private warnedRows = 0;
  private readonly warningExamples: string[] = [];
  private sharedEmails = 0;
  private suppressed = 0;
  private held: HeldDeletes | undefined;
  private merged: MergeReport | undefined;
  private readonly identityLines: string[] = [];
  private readonly staying = new Map<IntentKind, { count: number; first: string; reason: string }>();

  constructor(private readonly examplesPerGroup = 3) {}

  /** How a source decided who is who (`Source.identity`). */
  identity(lines: readonly string[]): void {
    this.identityLines.push(...lines);
  }

  /** People merged across steps, once every source is read. */
  mergedPeople(report: MergeReport): void {
    this.merged = report;
  }

  /** A part of a plan: its work, unchanged intents and row results. */
  add(
    plan: Pick<
      SyncPlan,
      'work' | 'unchanged' | 'rowResults' | 'parentMissing' | 'pickWarnings' | 'deleteLabels'
    >,
  ): void {
    const tally = this.losses;
    for (const item of plan.work) this.warned(item.warnings, item.origin);
    for (const item of plan.unchanged) this.warned(item.warnings, item.origin);
    for (const item of plan.work) {
      const where = item.origin
        ? `${item.origin.source} ${describeOrigin(item.origin)}`
        : item.plannedAction === 'retire'
          ? 'known to the ledger only; its platform record is another key of the source, so it stays'
          : 'known to the ledger only';
      const skip = plan.parentMissing?.get(item);
      if (skip !== undefined) {
        this.count(item.kind, 'skipped', item.key, where, skip.message);
        this.skipped(skip.code);
        const parent = skip.parent.kind;
        if (skip.why === 'filtered' || skip.why === 'deleted')
          tally.add(
            item.kind,
            'skipped',
            `their ${parent} was ${skip.why === 'filtered' ? 'filtered out on purpose' : 'deleted by a run'}`,
          );
        else
          tally.add(
            item.kind,
            'skipped',
            `their ${parent} is neither synced in this run nor known from an earlier one`,
            `Make the ${parent}s sync first (see why their rows are left out), then run again`,
          );
        continue;
      }
      const column: PlanColumn = item.plannedAction === 'unchanged' ? 'unchanged' : item.plannedAction;
      // A delete names whom it removes: the name and e-mail last sent (never a secret).
      const label = column === 'delete' ? plan.deleteLabels?.get(labelId(item.kind, item.key)) : undefined;
      this.count(
        item.kind,
        column,
        item.key,
        where,
        plan.pickWarnings?.get(item) ??
          (column === 'update'
            ? clearsNote(item.params)
            : label === undefined
              ? undefined
              : `last sent: ${label}`),
      );
      tally.add(item.kind, 'kept');
    }
    for (const item of plan.unchanged) {
      // Where it was read, said only of the few kept as examples: most rows of a night are here.
      const where = this.exampleWanted(item.kind, 'unchanged') ? originText(item.origin) : '';
      this.count(item.kind, 'unchanged', item.key, where);
      tally.add(item.kind, 'kept');
    }
    for (const row of plan.rowResults) {
      const column = columnOf(row);
      this.count(row.kind, column, row.key, originText(row.origin), row.message);
      if (column === 'held') this.heldCheckIns += 1;
      if (row.errorCode === CODE.MAPPING_SHARED_EMAIL) this.sharedEmails += 1;
      if (column === 'skipped') this.skipped(row.errorCode);
      if (row.errorCode === CODE.EVSYNC_SCHEDULE_PICKS_MISSING)
        // Its message names the events: cut at the first one, the line said nothing of them.
        tally.add(
          row.kind,
          'skipped',
          'not sent again: they pick events that are in no source, whose rows failed, or that the platform refused',
          'Add those events (or fix their rows), or take the picks out of the source',
        );
      else if (column === 'skipped' && row.errorCode !== DUPLICATE_ROW)
        tally.add(row.kind, 'skipped', reasonKind(row.message));
      else if (column === 'invalid')
        tally.add(row.kind, 'invalid', row.errorCode, 'See them with --report, or `evsync validate`');
    }
  }

  /**
   * A row sent without some optional fields: counted apart, its first messages kept, each
   * after its source's name (a job's steps each have a row 2).
   */
  private warned(warnings: readonly string[] | undefined, origin: RowOrigin | null): void {
    if (warnings === undefined || warnings.length === 0) return;
    this.warnedRows += 1;
    if (this.warningExamples.length < this.examplesPerGroup)
      this.warningExamples.push(
        ...warnings.slice(0, 1).map((warning) => (origin ? `${origin.source}: ${warning}` : warning)),
      );
  }

  /** Counts a skip as meant or as data lost (see `SKIPPED_ON_PURPOSE`). */
  private skipped(code: string): void {
    if (SKIPPED_ON_PURPOSE.has(code)) this.onPurpose += 1;
    else if (SKIPPED_FOR_MISSING_DATA.has(code)) this.lost += 1;
    else if (code === DUPLICATE_ROW) this.duplicates += 1;
    else if (code === CODE.EVSYNC_ERASED) this.suppressed += 1;
  }

  /**
   * In upsert mode, a row a `when:` condition left out whose user or event an earlier run
   * synced: nothing removes it, which a person must be told (a refunded ticket stays).
   */
  leftOutButSynced(kind: IntentKind, key: string, reason: string): void {
    const seen = this.staying.get(kind);
    if (seen) seen.count += 1;
    else this.staying.set(kind, { count: 1, first: key, reason });
  }

  /** Mirror mode held its deletes back (see {@link HeldDeletes}). */
  heldDeletes(held: HeldDeletes): void {
    this.held = held;
  }

  summary(planMs: number): PlanSummary {
    const summary: PlanSummary = {
      counts: this.counts,
      examples: this.examples,
      total: this.total,
      planMs,
      notices: [],
      losses: this.losses.lines(),
      ...(this.merged && this.merged.people + this.merged.refused > 0 ? { merged: this.merged } : {}),
      ...(this.identityLines.length > 0 ? { identity: [...this.identityLines] } : {}),
      skipped: {
        onPurpose: this.onPurpose,
        lost: this.lost,
        ...(this.duplicates > 0 ? { duplicates: this.duplicates } : {}),
        ...(this.sharedEmails > 0 ? { sharedEmails: this.sharedEmails } : {}),
        ...(this.suppressed > 0 ? { suppressed: this.suppressed } : {}),
      },
      ...(this.warnedRows > 0 ? { warnings: { rows: this.warnedRows, examples: this.warningExamples } } : {}),
    };
    if (this.held) summary.notices.push(heldDeletesNotice(this.held));
    for (const [kind, { count, first, reason }] of this.staying) {
      const one = count === 1;
      summary.notices.push(
        `${count} ${kind}${one ? '' : 's'} that an earlier run synced ${one ? 'is' : 'are'} left out on purpose now (first: ${first}, ${reason}): in upsert mode ${one ? 'it stays' : 'they stay'} on the platform. ` +
          `Remove ${one ? 'it' : 'them'} there, or run the job in mirror mode, which removes ${one ? 'it' : 'them'}.`,
      );
    }
    const held = this.heldCheckIns;
    if (held > 0) {
      summary.notices.push(
        `${held} check-in${held === 1 ? ' is' : 's are'} held back: an earlier run sent ${held === 1 ? 'it' : 'them'} and has no answer recorded (lost, or that run was cut off), so the platform may have ${held === 1 ? 'it' : 'them'} already. ` +
          'Check the platform, then send the missing ones with `evsync retry RUN --client-id KEY… --resend-unknown` (each held row names its run and the command).',
      );
    }
    return summary;
  }

  private count(kind: IntentKind, column: PlanColumn, key: string, where: string, note?: string): void {
    const want = this.exampleWanted(kind, column);
    const row = (this.counts[kind] ??= {});
    row[column] = (row[column] ?? 0) + 1;
    this.total += 1;
    if (want) this.examples.push({ kind, column, key, where, ...(note === undefined ? {} : { note }) });
  }

  /**
   * Whether the next row of a group is kept as an example: its first few are. The group's
   * count says how many went before, so no `kind/column` string is made per row.
   */
  private exampleWanted(kind: IntentKind, column: PlanColumn): boolean {
    return (this.counts[kind]?.[column] ?? 0) < this.examplesPerGroup;
  }
}

/** A repeated row left out by `on_duplicate`: the mapping's choice, not a loss. */
const DUPLICATE_ROW = CODE.EVSYNC_DUPLICATE_ROW;

/** An update that clears fields the source emptied names them (plan/cleared-fields.ts). */
function clearsNote(params: Readonly<Record<string, string>>): string | undefined {
  const cleared = Object.keys(params).filter((name) => params[name] === '');
  return cleared.length > 0 ? `clears (empty in the source): ${cleared.join(', ')}` : undefined;
}

function columnOf(row: RowResult): PlanColumn {
  if (row.errorCode === CHECK_IN_HELD_BACK) return 'held';
  return row.action === 'failed' ? 'invalid' : 'skipped';
}

function heldDeletesNotice(held: HeldDeletes): string {
  const would = held.counts
    .filter((count) => count.deletes > 0)
    .map((count) => `${count.deletes} ${count.kind}${count.deletes === 1 ? '' : 's'}`);
  const first = held.first ? ` (first: ${held.first.source} ${describeOrigin(held.first)})` : '';
  return (
    `Mirror deletes held back: ${held.rows} row${held.rows === 1 ? '' : 's'} failed before ${held.rows === 1 ? 'its key' : 'their keys'} could be read${first}, ` +
    `and any of them may be an object still in the source, so this run deletes nothing${would.length > 0 ? ` (it would delete ${would.join(', ')})` : ''}. ` +
    'Fix or remove those rows; the next run deletes what is gone.'
  );
}

function originText(origin: { source: string; row: number; line?: number } | null): string {
  return origin ? `${origin.source} ${describeOrigin(origin)}` : '';
}
