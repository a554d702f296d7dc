import type { Intent } from '../../model/intent.js';
import { yieldedNoRows, type Source } from '../../sources/source-row.js';
import { loadMapping, type LoadMappingOptions } from '../load-mapping.js';
import { mapSource, mergeHeaderReports } from '../map-source.js';
import type { HeaderReport } from '../mapped-item.js';
import type { DependencyCheck } from './dependency-check.js';
import type { RowProgress } from './row-progress.js';
import type { ValidationReport } from './validation-report.js';
import { ValidationSummary } from './validation-summary.js';

/** One mapping over one source, as a job step names them. */
export interface ValidationStep {
  mapping: string;
  source: Source;
  /** Where a mapping path is resolved (the job file's folder). */
  baseDir: string;
  /** What the job step says of its mapping (`custom_data:`, `on_shared_email:`). */
  mappingOptions?: Pick<LoadMappingOptions, 'customData' | 'onSharedEmail'>;
}

export interface StepResult {
  mapping: string;
  mappingFile: string;
  source: string;
  header: HeaderReport | undefined;
  summary: ValidationSummary;
  /** How the source was read (a guessed encoding and why). */
  notes: readonly string[];
  /** What a person must not miss of the step as a whole: a source that yielded no rows. */
  warnings: readonly string[];
}

export interface ValidateOptions {
  vendor: string;
  report?: ValidationReport;
  progress?: RowProgress;
  /** Told every item of every step: links that name what no step creates. */
  dependencies?: DependencyCheck;
  /** Told the intents of every valid row, with its step's index (people merged across steps). */
  onIntents?: (step: number, intents: readonly Intent[]) => Promise<void>;
}

/**
 * Reads, maps and validates every step without any network call. Rows are counted and
 * problems written to the report as they stream by; nothing is kept per row.
 */
export async function validateSteps(
  steps: readonly ValidationStep[],
  options: ValidateOptions,
): Promise<StepResult[]> {
  const results: StepResult[] = [];
  for (const [index, step] of steps.entries()) {
    const mapping = await loadMapping(step.mapping, {
      baseDir: step.baseDir,
      vendor: options.vendor,
      ...step.mappingOptions,
    });
    const summary = new ValidationSummary();
    const headers: HeaderReport[] = [];
    options.progress?.step(
      `${mapping.name} ← ${step.source.description}`,
      step.source.progress?.bind(step.source),
    );
    const mappingNotes: string[] = [];
    for await (const item of mapSource(step.source, mapping, {
      onHeader: (report) => headers.push(report),
      onNotes: (notes) => mappingNotes.push(...notes),
    })) {
      summary.add(item);
      options.dependencies?.add(item);
      options.report?.add(mapping.name, item);
      options.progress?.tick();
      if (options.onIntents && (item.type === 'intents' || item.type === 'duplicate'))
        await options.onIntents(index, item.intents);
    }
    results.push({
      mapping: mapping.name,
      mappingFile: mapping.file,
      source: step.source.description,
      header: mergeHeaderReports(headers),
      summary,
      // How the source decided who is who (a joined speaker list) is said with its notes.
      notes: [...(step.source.notes?.() ?? []), ...mappingNotes, ...(step.source.identity?.() ?? [])],
      // As `run` says it (collect-intents.ts): every row counts, valid or not.
      warnings: summary.rowsRead === 0 ? [yieldedNoRows(step.source.description)] : [],
    });
  }
  return results;
}
