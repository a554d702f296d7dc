import { z } from 'zod';
import { CSV_ENCODINGS, csvEncodingNamed } from './csv/detect-encoding.js';

/**
 * The `source:` of a job step, exactly one kind per step. Paths are relative to the job
 * file; connection URLs never appear here, only the name of the env var that holds one.
 */
const filePath = z.string().min(1, 'is empty: give a file path relative to the job file');

const envVarName = z
  .string()
  .regex(/^[A-Z_][A-Z0-9_]*$/, 'must be the NAME of an environment variable (e.g. SOURCE_DB_URL), not a URL');

export const csvSourceSchema = z.union([
  filePath.transform((path) => ({ path })),
  z.strictObject({
    path: filePath,
    /** Forces the text encoding; detected from the BOM and the bytes otherwise. */
    encoding: z
      .string()
      .transform((name, context) => {
        const encoding = csvEncodingNamed(name);
        if (encoding !== undefined) return encoding;
        context.addIssue({
          code: 'custom',
          message: `"${name}" is not an encoding evsync reads; use one of ${CSV_ENCODINGS.join(', ')}`,
        });
        return z.NEVER;
      })
      .optional(),
    /** Forces the delimiter; detected among `, ; \t |` otherwise. */
    delimiter: z.enum([',', ';', '\t', '|']).optional(),
    /** The most characters one record may hold (docs/sources.md, "Limits"). */
    max_record_chars: z.number().int().min(65_536, 'must be at least 65536').optional(),
  }),
]);

/** A JSON export read whole (pretix's order export): a path, or `{ path }`. */
export const jsonFileSourceSchema = z.union([
  filePath.transform((path) => ({ path })),
  z.strictObject({ path: filePath }),
]);

export const sqlSourceSchema = z.strictObject({
  url_env: envVarName,
  query: z.string().min(1, 'is empty: give the SELECT to run'),
  /** Named parameters of the query, written `:name` in it. */
  params: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).default({}),
  /** A short name for reports (`row 12 of query "attendees"`). */
  name: z.string().optional(),
});

/**
 * The organiser's speaker list joined to a schedule export's speakers (docs/sources.md):
 * a CSV or a query, with the columns that hold the export's speaker id, the e-mail, the
 * name, and what else to fill.
 */
const speakerJoinSchema = z
  .strictObject({
    csv: csvSourceSchema.optional(),
    postgres: sqlSourceSchema.optional(),
    mysql: sqlSourceSchema.optional(),
    /** The column holding the export's speaker id (Sessionize GUID, pretalx code, frab id). */
    id: z.string().min(1).optional(),
    /** The column holding the e-mail: matched on, and filled in. */
    email: z.string().min(1),
    /**
     * The column holding the full name as the export writes it, or the columns that make it
     * (`[FirstName, LastName]`, joined with a space): matched when nothing else is.
     */
    name: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
    first_name: z.string().min(1).optional(),
    last_name: z.string().min(1).optional(),
    company: z.string().min(1).optional(),
  })
  .refine(
    (v) => [v.csv, v.postgres, v.mysql].filter((kind) => kind !== undefined).length === 1,
    'give exactly one of csv, postgres and mysql: where the speaker list is',
  );
export type SpeakerJoinConfig = z.infer<typeof speakerJoinSchema>;

const scheduleSourceSchema = z.union([
  filePath.transform((path) => ({
    path,
    url: undefined,
    timezone: undefined,
    override_timezone: undefined,
    speakers: undefined,
  })),
  z
    .strictObject({
      path: filePath.optional(),
      url: z.url().optional(),
      /**
       * IANA zone for an export that declares none (Sessionize; some frab XML). The zone
       * the export declares wins over it, and a contradiction is said (docs/sources.md, Times).
       */
      timezone: z.string().optional(),
      /** IANA zone that wins over the zone the export declares: the job means to override it. */
      override_timezone: z.string().optional(),
      speakers: speakerJoinSchema.optional(),
    })
    .refine((v) => (v.path === undefined) !== (v.url === undefined), 'give exactly one of path and url')
    .refine(
      (v) => v.timezone === undefined || v.override_timezone === undefined,
      'give timezone: (for an export that declares no zone) or override_timezone: (to override the zone it declares), not both',
    ),
]);

const sourceKindUnion = z.union([
  z.strictObject({ csv: csvSourceSchema }),
  z.strictObject({ postgres: sqlSourceSchema }),
  z.strictObject({ mysql: sqlSourceSchema }),
  z.strictObject({ sessionize: scheduleSourceSchema }),
  z.strictObject({ pretalx: scheduleSourceSchema }),
  z.strictObject({ frab: scheduleSourceSchema }),
  z.strictObject({ pretix_json: jsonFileSourceSchema }),
]);

export const SOURCE_KINDS = [
  'csv',
  'postgres',
  'mysql',
  'sessionize',
  'pretalx',
  'frab',
  'pretix_json',
] as const;

/** Names the kinds on a wrong key instead of zod's bare "Invalid input" for a union. */
export const sourceConfigSchema = z
  .record(z.string(), z.unknown())
  .superRefine((value, ctx) => {
    const keys = Object.keys(value);
    const kind = keys[0];
    if (keys.length !== 1 || kind === undefined || !(SOURCE_KINDS as readonly string[]).includes(kind)) {
      ctx.addIssue({
        code: 'custom',
        message: `give exactly one source kind: ${SOURCE_KINDS.join(', ')} (found: ${keys.join(', ') || 'nothing'})`,
      });
    }
  })
  .pipe(sourceKindUnion);

export type SourceConfig = z.infer<typeof sourceConfigSchema>;
export type CsvSourceConfig = z.infer<typeof csvSourceSchema>;
export type SqlSourceConfig = z.infer<typeof sqlSourceSchema>;
