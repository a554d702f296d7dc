import { statSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import type { Command } from 'commander';
import { vendorFromEnv } from '../../config/env-config.js';
import { CODE } from '../../errors/codes.js';
import { ConfigError } from '../../errors/evsync-error.js';
import { DependencyCheck, formatDanglingLinks } from '../../mapping/validate/dependency-check.js';
import { formatValidationSummary } from '../../mapping/validate/format-validation-summary.js';
import { RowProgress } from '../../mapping/validate/row-progress.js';
import {
  validateSteps,
  type StepResult,
  type ValidationStep,
} from '../../mapping/validate/validate-steps.js';
import { ValidationReport } from '../../mapping/validate/validation-report.js';
import { openSource } from '../../sources/open-source.js';
import { recognisedMapping } from './recognised-mapping.js';
import { COMMAND_LINE_ZONE_SETTINGS } from '../../sources/schedule/conference-zone.js';
import { speakerListConfig } from './speaker-list-option.js';
import { sourceConfigSchema } from '../../sources/source-config.js';
import { rootLogger } from '../../log/logger.js';
import { redactUrl } from '../../log/redaction.js';
import { loadJobFile, stepMappingOptions, type LoadedJob } from '../../sync/job-file.js';
import { loadMapping } from '../../mapping/load-mapping.js';
import { unmappedColumnsNotes } from '../../mapping/unmapped-columns-note.js';
import type { Intent } from '../../model/intent.js';
import { peopleMerger } from '../../sync/collect/collect-intents.js';
import { formatMergeReport, type MergeReport, type PeopleMerger } from '../../sync/collect/merge-people.js';
import { EXIT } from '../exit-codes.js';

interface ValidateCliOptions {
  source?: string;
  format?: string;
  timezone?: string;
  overrideTimezone?: string;
  speakers?: string;
  mapping?: string;
  report?: string;
  json?: boolean;
}

export function registerValidateCommand(program: Command): void {
  program
    .command('validate')
    .description(
      'Read, map and validate sources without sending anything: a summary, and every problem row in a report.',
    )
    .argument('[job]', 'the job file (YAML); or give --source and --mapping')
    .option(
      '--source <file>',
      'a file to validate instead of a job: CSV, a schedule export or a pretix JSON order export (see --format)',
    )
    .option(
      '--format <kind>',
      `with --source: ${FILE_FORMATS.join(', ')} (default: csv; a .json or .xml file read by the sessionize, pretalx or pretix-orders mapping is that export)`,
    )
    .option(
      '--timezone <zone>',
      'with a schedule export that declares no zone: the IANA zone of times written without an offset',
    )
    .option(
      '--override-timezone <zone>',
      'with a schedule export: the IANA zone to write times in, over the zone the export declares',
    )
    .option(
      '--speakers <file>',
      "with a schedule export: the organiser's speaker list (CSV) that gives the speakers' e-mails, matched by the columns ID (or Code, Speaker Id), Email and Name",
    )
    .option(
      '--mapping <name>',
      'with --source: a shipped mapping (users, eventbrite…) or a mapping file; without it, a CSV export of a tool evsync knows (Eventbrite, pretix, Tito, Luma) is recognised by its header',
    )
    .option('--report <file>', 'write every invalid, skipped and duplicate row to a .csv or .json file')
    .option('--json', 'print the summary as JSON')
    .addHelpText(
      'after',
      '\nExit status: 0 all rows valid, 1 some rows invalid or skipped for want of a value, 2 usage or file error.',
    )
    .action(async (jobPath: string | undefined, options: ValidateCliOptions) => {
      process.exitCode = await validateCommand(jobPath, options);
    });
}

async function validateCommand(jobPath: string | undefined, options: ValidateCliOptions): Promise<number> {
  const vendor = vendorFromEnv();
  const steps = await validationSteps(jobPath, options);
  const report = options.report === undefined ? undefined : openReport(options.report, options.source);
  const progress = new RowProgress();
  const dependencies = new DependencyCheck();
  const merger = jobPath === undefined ? undefined : await mergerOf(loadJobFile(jobPath), vendor);
  let results: StepResult[];
  let merged: MergeReport | undefined;
  try {
    results = await validateSteps(steps, {
      vendor,
      progress,
      dependencies,
      ...(report ? { report } : {}),
      ...(merger ? { onIntents: mergeInto(merger) } : {}),
    });
    if (merger) {
      for await (const users of merger.merged()) void users;
      merged = merger.report();
    }
  } catch (error) {
    // The validation's own error is the one to show, not a report that could not be finished.
    report?.abandon();
    throw error;
  } finally {
    progress.stop();
    await merger?.dispose();
  }
  await report?.close();
  const dangling = dependencies.result();
  process.stdout.write(
    options.json
      ? `${JSON.stringify({ steps: results.map(toJson), danglingLinks: dangling, ...(merged ? { merged } : {}) }, null, 2)}\n`
      : formatResults(results, options.report, formatDanglingLinks(dangling), formatMergeReport(merged)),
  );
  // A row skipped because a value it needs is empty is lost, like an invalid one.
  // Rows of people the steps disagree on (merge-people.ts) are not sent either.
  return results.every((result) => result.summary.allValid && result.summary.rowsIncomplete === 0) &&
    (merged?.refused ?? 0) === 0
    ? EXIT.ok
    : EXIT.someRowsFailed;
}

async function validationSteps(
  jobPath: string | undefined,
  options: ValidateCliOptions,
): Promise<ValidationStep[]> {
  if (jobPath !== undefined) {
    if (options.source !== undefined || options.mapping !== undefined) {
      throw new ConfigError('Give either a job file or --source with --mapping, not both', {
        code: CODE.EVSYNC_USAGE,
      });
    }
    const job = loadJobFile(jobPath);
    return job.steps.map((step) => ({
      mapping: step.mapping,
      mappingOptions: stepMappingOptions(step),
      source: openSource(step.source, { baseDir: job.baseDir, logger: rootLogger() }),
      baseDir: job.baseDir,
    }));
  }
  if (options.source === undefined) {
    throw new ConfigError('Give a job file, or --source FILE with --mapping NAME (e.g. --mapping users)', {
      code: CODE.EVSYNC_USAGE,
    });
  }
  options.mapping ??= await recognisedMapping(options.source, options.format);
  const url = isUrl(options.source);
  const mapping = options.mapping;
  const format = sourceFormat(
    url ? new URL(options.source).pathname : options.source,
    mapping,
    options.format,
  );
  for (const [given, name] of [
    [options.timezone, '--timezone'],
    [options.overrideTimezone, '--override-timezone'],
    [options.speakers, '--speakers'],
  ] as const) {
    if (given !== undefined && PLAIN_FILE_FORMATS.has(format)) {
      throw new ConfigError(`${name} is for schedule exports (--format sessionize, pretalx or frab)`, {
        code: CODE.EVSYNC_USAGE,
      });
    }
  }
  if (options.timezone !== undefined && options.overrideTimezone !== undefined) {
    throw new ConfigError(
      'Give --timezone (for an export that declares no zone) or --override-timezone (to override the zone it declares), not both',
      { code: CODE.EVSYNC_USAGE },
    );
  }
  if (url && PLAIN_FILE_FORMATS.has(format)) {
    throw new ConfigError(
      `--source ${redactUrl(options.source)}: a ${format === 'csv' ? 'CSV' : 'pretix JSON'} source is a file: download it first, or say which schedule export it is with --format`,
      { code: CODE.EVSYNC_USAGE },
    );
  }
  if (!url) checkIsFile(options.source, format === 'csv' ? "the CSV file's path" : "the export file's path");
  const where = url ? { url: options.source } : { path: options.source };
  const speakers =
    options.speakers === undefined ? undefined : await speakerListConfig(options.speakers, rootLogger());
  const config = sourceConfigSchema.parse(
    PLAIN_FILE_FORMATS.has(format)
      ? { [format]: options.source }
      : {
          [format]: {
            ...where,
            ...(options.timezone ? { timezone: options.timezone } : {}),
            ...(options.overrideTimezone ? { override_timezone: options.overrideTimezone } : {}),
            ...(speakers ? { speakers } : {}),
          },
        },
  );
  return [
    {
      mapping,
      source: openSource(config, {
        baseDir: process.cwd(),
        logger: rootLogger(),
        zoneSettingNames: COMMAND_LINE_ZONE_SETTINGS,
      }),
      baseDir: process.cwd(),
    },
  ];
}

const FILE_FORMATS = ['csv', 'sessionize', 'pretalx', 'frab', 'pretix_json'] as const;
/** The formats whose source takes only a path: no zone, no speaker list, no URL. */
const PLAIN_FILE_FORMATS: ReadonlySet<FileFormat> = new Set(['csv', 'pretix_json']);
type FileFormat = (typeof FILE_FORMATS)[number];

/** The given `--format`, else what the file and the mapping say: a schedule export is JSON or XML. */
function sourceFormat(file: string, mapping: string, given: string | undefined): FileFormat {
  if (given !== undefined) {
    if ((FILE_FORMATS as readonly string[]).includes(given)) return given as FileFormat;
    throw new ConfigError(`--format ${given}: use one of ${FILE_FORMATS.join(', ')}`, {
      code: CODE.EVSYNC_USAGE,
    });
  }
  const extension = extname(file).toLowerCase();
  if (extension !== '.json' && extension !== '.xml') return 'csv';
  const name = basename(mapping, extname(mapping)).toLowerCase();
  if (name === 'sessionize' || name === 'pretalx') return name;
  if (name === 'pretix-orders' && extension === '.json') return 'pretix_json';
  if (extension === '.xml') return 'frab';
  throw new ConfigError(
    `${redactUrl(file)} is not a CSV file: say which export it is with --format sessionize, --format pretalx, --format frab or --format pretix_json`,
    { code: CODE.EVSYNC_USAGE },
  );
}

function isUrl(source: string): boolean {
  return /^https?:\/\//i.test(source) && URL.canParse(source);
}

/**
 * `--source` names a file, not a folder. A missing or unreadable file is left to the source,
 * which says so in its own words.
 */
function checkIsFile(source: string, what: string): void {
  if (statSync(source, { throwIfNoEntry: false })?.isDirectory()) {
    throw new ConfigError(`${source} is a directory, not a file: give ${what}`, {
      code: CODE.EVSYNC_USAGE,
    });
  }
}

/** The `--report` file, opened before a row is read; never the source itself. */
function openReport(file: string, source: string | undefined): ValidationReport {
  if (source !== undefined && !isUrl(source) && sameFile(file, source)) {
    throw new ConfigError(
      `--report ${file} is the source file itself: writing the report would overwrite it. Give another report path`,
      { code: CODE.EVSYNC_USAGE },
    );
  }
  return new ValidationReport(file);
}

/** The same path, or another name (a link) for the same file. */
function sameFile(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  const [statA, statB] = [statSync(a, { throwIfNoEntry: false }), statSync(b, { throwIfNoEntry: false })];
  return statA !== undefined && statB !== undefined && statA.dev === statB.dev && statA.ino === statB.ino;
}

/** The job's people merger (docs/sync-engine.md, "One person, many sources"), if it merges. */
async function mergerOf(job: LoadedJob, vendor: string): Promise<PeopleMerger | undefined> {
  const mappings = await Promise.all(
    job.steps.map((step) =>
      loadMapping(step.mapping, { baseDir: job.baseDir, vendor, ...stepMappingOptions(step) }),
    ),
  );
  return peopleMerger(job, mappings, { vendor });
}

function mergeInto(merger: PeopleMerger): (step: number, intents: readonly Intent[]) => Promise<void> {
  return async (step, intents) => {
    for (const intent of intents) await merger.take(step, intent);
  };
}

function formatResults(
  results: StepResult[],
  reportFile: string | undefined,
  dangling: string,
  merged: readonly string[],
): string {
  const parts = results.map((result) => {
    const notes = result.notes.map((note) => `  note: ${note}`);
    if (result.header && result.header.missing.length > 0) {
      const missing = result.header.missing.map((aliases) => aliases.join(' / ')).join('; ');
      notes.push(`  note: the source has no column ${missing} (read as empty)`);
    }
    for (const unmapped of unmappedColumnsNotes(result.header)) notes.push(`  note: ${unmapped}`);
    const title = `${result.mapping} (${result.mappingFile}) ← ${redactUrl(result.source)}`;
    return [formatValidationSummary(title, result.summary, result.warnings.map(redactUrl)), ...notes].join(
      '\n',
    );
  });
  if (dangling !== '') parts.push(dangling);
  if (merged.length > 0) parts.push(merged.join('\n'));
  if (reportFile !== undefined) parts.push(`Report written to ${reportFile}`);
  return `${parts.join('\n\n')}\n`;
}

function toJson(result: StepResult): unknown {
  const { summary } = result;
  return {
    mapping: result.mapping,
    mappingFile: result.mappingFile,
    source: redactUrl(result.source),
    missingColumns: result.header?.missing ?? [],
    unmappedColumns: result.header?.unused ?? [],
    notes: result.notes,
    rowsRead: summary.rowsRead,
    rowsValid: summary.rowsValid + summary.rowsGrouped,
    rowsSkipped: summary.rowsSkipped,
    rowsDuplicate: summary.rowsDuplicate,
    rowsInvalid: summary.rowsInvalid,
    rowsWithWarnings: summary.rowsWarned,
    schedulesInvalid: summary.groupsInvalid,
    intents: Object.fromEntries(summary.intents),
    problems: [...summary.problems.values()],
    fieldsLeftOut: [...summary.warnings.values()],
    duplicates: [...summary.duplicates.values()],
    skipped: [...summary.skipped.values()],
    warnings: [...result.warnings.map(redactUrl), ...summary.losses.lines()],
  };
}
