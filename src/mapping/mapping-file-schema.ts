import { z } from 'zod';
import { INTENT_KINDS } from '../model/intent.js';
import { ON_DUPLICATE, ON_SHARED_EMAIL } from './mapped-item.js';

/**
 * The shape of a mapping file (`mappings/*.yaml`). Only structure lives here, so that the
 * JSON Schema published for editors (`mappings/mapping.schema.json`) is generated from it;
 * the rules that need the vendor word or the time-zone database are in mapping-file-rules.ts.
 * docs/mapping.md explains every field.
 */

/** A column name, or the list of its aliases (`[First Name, first_name, Vorname]`). */
export const columnRefSchema = z
  .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
  .describe('A column name or a list of aliases; matched ignoring case and spaces.');

export const SIMPLE_TRANSFORMS = [
  'trim',
  'lower',
  'upper',
  'collapse_spaces',
  'strip_excel',
  'text_to_xhtml',
  'html_to_xhtml',
  'markdown_to_xhtml',
  'to_xhtml',
  'country_code',
  'country',
  'first_name',
  'last_name',
  'digits_and_plus',
] as const;

/** `"shout"`, `{colum: …}`: how a value that fits nothing is named in a message. */
function given(input: unknown): string {
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) {
    return `{${Object.keys(input).join(', ')}: …}`;
  }
  const json = JSON.stringify(input) ?? String(input);
  return json.length > 40 ? `${json.slice(0, 37)}…` : json;
}

const TRANSFORM_HINT = `use one of ${SIMPLE_TRANSFORMS.join(', ')}, or {split: …}, {join: …}, {default: …}, {lookup: …}, {datetime: …}, {replace: …}, {handle_url: …}`;

export const transformSchema = z.union(
  [
    z.enum(SIMPLE_TRANSFORMS),
    z.strictObject({ split: z.string().min(1).describe('Splits the value into a list at this separator.') }),
    z.strictObject({ join: z.string().describe('Joins a list into one value with this separator.') }),
    z.strictObject({ default: z.string().describe('The value to use when it is empty.') }),
    z.strictObject({
      lookup: z.strictObject({
        table: z
          .record(z.string(), z.string())
          .describe('Source value → value sent; keys match ignoring case.'),
        default: z
          .string()
          .optional()
          .describe(
            'For values not in the table (each is named in a note once the source is read); without it they are an error.',
          ),
        before: z
          .string()
          .min(1)
          .optional()
          .describe(
            "A value not in the table is looked up again by its text before this separator: ' – ' for pretix's `Product – Variation`.",
          ),
      }),
    }),
    z.strictObject({
      datetime: z.strictObject({
        timezone: z.string().optional().describe('IANA zone for times written without an offset.'),
        timezone_column: columnRefSchema.optional().describe('A column holding the IANA zone per row.'),
        date_order: z.enum(['dmy', 'mdy']).optional().describe('How to read 03/04/2026.'),
      }),
    }),
    z.strictObject({
      replace: z.strictObject({ pattern: z.string().min(1), with: z.string() }),
    }),
    z.strictObject({
      handle_url: z
        .enum(['twitter', 'github', 'linkedin'])
        .describe('A handle (`@ada`, `x.com/ada`) → the https URL of the profile on that network.'),
    }),
  ],
  { error: (issue) => `${given(issue.input)} is not a transform: ${TRANSFORM_HINT}` },
);

const requiredSchema = z
  .boolean()
  .optional()
  .describe(
    'A problem in this field fails the row (by default a user row is sent without an optional field it got wrong, with a warning).',
  );

export const columnValueSchema = z.strictObject({
  column: columnRefSchema,
  transforms: z.array(transformSchema).optional(),
  required: requiredSchema,
});
export const templateValueSchema = z.strictObject({
  template: z.string().min(1).describe('Text with {Column} placeholders; {A|B} tries aliases.'),
  transforms: z.array(transformSchema).optional(),
  required: requiredSchema,
});
export const constValueSchema = z.strictObject({
  const: z.union([z.string(), z.number(), z.boolean()]),
  transforms: z.array(transformSchema).optional(),
  required: requiredSchema,
});

const VALUE_HINT =
  'write a column name, a list of aliases, or one of {column: …}, {template: …}, {const: …}, {first_of: […]}';

/** A bare list is a column with its aliases: `[Last Name, Surname]`. */
const aliasListSchema = z.array(z.string().min(1)).min(1);

/** The message of a value that fits none of the forms, naming what was written. */
const notAValue =
  (forms: string) =>
  (issue: { input?: unknown }): string =>
    `${given(issue.input)} is not a value: ${forms}`;

const baseValueSchema = z.union(
  [z.string().min(1), aliasListSchema, columnValueSchema, templateValueSchema, constValueSchema],
  { error: notAValue(VALUE_HINT) },
);

export const firstOfValueSchema = z.strictObject({
  first_of: z.array(baseValueSchema).min(2).describe('The first of these values that is not empty.'),
  transforms: z.array(transformSchema).optional(),
  required: requiredSchema,
});

/** A value without JSON building: a bare string is a column name, a bare list its aliases. */
export const simpleValueSchema = z.union(
  [
    z.string().min(1),
    aliasListSchema,
    columnValueSchema,
    templateValueSchema,
    constValueSchema,
    firstOfValueSchema,
  ],
  { error: notAValue(VALUE_HINT) },
);

export const jsonValueSchema = z.strictObject({
  json: z
    .record(z.string().min(1), simpleValueSchema)
    .describe('Builds a JSON object; empty values are left out, and no object when all are.'),
  required: requiredSchema,
});

export const valueSchema = z.union([simpleValueSchema, jsonValueSchema], {
  error: notAValue(`${VALUE_HINT} or {json: …}`),
});

const CONDITION_OPERATORS = ['equals', 'not_equals', 'in', 'not_in', 'present', 'matches'] as const;

export const conditionSchema = z
  .strictObject({
    column: columnRefSchema,
    equals: z.string().optional(),
    not_equals: z.string().optional(),
    in: z.array(z.string()).optional(),
    not_in: z.array(z.string()).optional(),
    present: z.boolean().optional(),
    matches: z.string().optional().describe('A regular expression (case-insensitive).'),
    reason: z.string().optional().describe('Recorded with each row this condition skips.'),
  })
  .refine((c) => CONDITION_OPERATORS.filter((op) => c[op] !== undefined).length === 1, {
    message: `give exactly one of ${CONDITION_OPERATORS.join(', ')}`,
  });

/** Indexed sub-records (addresses, phones): one entry per block, dropped when all empty. */
export const indexedBlockSchema = z.record(z.string().min(1), simpleValueSchema);

export const intentSpecSchema = z.strictObject({
  kind: z.enum(INTENT_KINDS),
  op: z
    .union([z.enum(['upsert', 'remove']), simpleValueSchema])
    .optional()
    .describe('upsert (the default) or remove, fixed or from a column.'),
  when: z.union([conditionSchema, z.array(conditionSchema).min(1)]).optional(),
  key: simpleValueSchema.optional().describe('The ledger key; required for check_in.'),
  params: z.record(z.string().min(1), valueSchema),
  addresses: z.array(indexedBlockSchema).optional().describe('user: addresses_attributes[n]'),
  phones: z.array(indexedBlockSchema).optional().describe('user: phones_attributes[n]'),
});

export const mappingFileSchema = z.strictObject({
  version: z.literal(1).default(1),
  description: z.string().optional(),
  on_duplicate: z.enum(ON_DUPLICATE).default('error'),
  on_shared_email: z
    .enum(ON_SHARED_EMAIL)
    .default('error')
    .describe(
      'A user row whose e-mail an earlier row gave to a person of another name: error (fail it), first (leave it out), suffix (a plus-address).',
    ),
  unique: z.array(z.string().min(1)).default([]).describe('Params whose values must not repeat.'),
  not_custom_data: z
    .array(z.string().min(1))
    .default([])
    .describe(
      "Columns that `custom_data: { columns: all_unmapped }` never copies to a profile, though no param reads them: an order's data beside each ticket (pretix's order `Phone number`).",
    ),
  detect: z
    .array(columnRefSchema)
    .optional()
    .describe(
      'Columns (each with its aliases) that together say a file is the export this mapping reads: `evsync validate --source F` without --mapping names the mapping whose columns the file has.',
    ),
  preprocess: z
    .array(transformSchema)
    .default(['trim'])
    .describe('Transforms applied to every column value first.'),
  intents: z.array(intentSpecSchema).min(1, 'a mapping yields at least one intent'),
});

export type MappingFile = z.infer<typeof mappingFileSchema>;
export type IntentSpec = z.infer<typeof intentSpecSchema>;
export type ValueSpec = z.infer<typeof valueSchema>;
export type SimpleValueSpec = z.infer<typeof simpleValueSchema>;
export type BaseValueSpec = z.infer<typeof baseValueSchema>;
export type TransformSpec = z.infer<typeof transformSchema>;
export type ConditionSpec = z.infer<typeof conditionSchema>;
export type ColumnRef = z.infer<typeof columnRefSchema>;
