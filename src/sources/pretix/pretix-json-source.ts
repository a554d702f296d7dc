import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { CODE } from '../../errors/codes.js';
import { messageOf } from '../../errors/evsync-error.js';
import { SourceError } from '../source-error.js';
import type { RawRecord, Source, SourceItem } from '../source-row.js';

export interface PretixJsonSourceOptions {
  /** Absolute path of the export. */
  path: string;
  /** How it is named in messages and origins. @defaultValue `path` */
  displayPath?: string;
}

/**
 * pretix's "Order data (JSON)" export (docs/sources.md, "pretix JSON order export"): one row
 * per order position, under the column names of pretix's own CSV positions sheet
 * (`Order code`, `Position ID`, `Status`, `Email`, `Product`, `Attendee name`, `Attendee
 * email`, …, one column per question), so that the shipped `pretix-orders` mapping reads
 * both. The export is one JSON document, read at once: an event's orders are thousands, not
 * millions.
 */
export function createPretixJsonSource(options: PretixJsonSourceOptions): Source {
  const display = options.displayPath ?? options.path;
  const notes: string[] = [];
  return {
    description: `pretix order export ${display}`,
    notes: () => notes,
    async *rows(): AsyncIterable<SourceItem> {
      notes.length = 0;
      const event = parseExport(await readText(options.path, display), display);
      const columns = new Columns(event);
      let row = 0;
      for (const order of event.orders) {
        const byId = new Map(order.positions.map((position) => [position.id, position]));
        for (const position of order.positions) {
          row++;
          yield { ok: true, origin: { source: display, row }, values: columns.row(order, position, byId) };
        }
      }
      const name = event.name === undefined ? '' : ` of ${JSON.stringify(event.name)}`;
      notes.push(`read ${event.orders.length} order(s)${name} with ${row} position(s), one row each`);
    },
  };
}

/** pretix's order status letters, as its CSV export spells them. */
const STATUS: Readonly<Record<string, string>> = { n: 'pending', p: 'paid', e: 'expired', c: 'canceled' };

type Export = z.infer<typeof exportSchema>['event'];
type Order = Export['orders'][number];
type Position = Order['positions'][number];

/** Builds each position's row: products, variations and questions by id, named once. */
class Columns {
  private readonly items = new Map<number, { name: string; admission: boolean | undefined }>();
  private readonly variations = new Map<number, string>();
  private readonly questions = new Map<number, string>();

  constructor(event: Export) {
    for (const item of event.items) {
      this.items.set(item.id, { name: item.name, admission: item.admission ?? undefined });
      for (const variation of item.variations) this.variations.set(variation.id, variation.name);
    }
    const taken = new Set<string>(OWN_COLUMNS);
    for (const question of event.questions) {
      // Two questions of one text would be one column: the later one is told by its id.
      let name = question.question.trim() || `Question ${question.id}`;
      if (taken.has(name)) name = `${name} (${question.id})`;
      taken.add(name);
      this.questions.set(question.id, name);
    }
  }

  row(order: Order, position: Position, byId: ReadonlyMap<number, Position>): RawRecord {
    const item = position.item === null ? undefined : this.items.get(position.item);
    const values: RawRecord = {
      'Order code': order.code,
      'Position ID': String(position.positionid),
      Status: STATUS[order.status] ?? order.status,
      'Test mode': order.testmode === true ? 'yes' : 'no',
      Email: order.email ?? '',
      'Phone number': order.phone ?? '',
      'Order date': order.datetime ?? '',
      Product: item?.name ?? '',
      Variation: position.variation === null ? '' : (this.variations.get(position.variation) ?? ''),
      // Whether the product admits a person (a T-shirt sold alone does not): pretix's JSON
      // says so, its CSV does not.
      Admission: item?.admission === false ? 'no' : 'yes',
      'Add-on to position ID':
        position.addon_to === null
          ? ''
          : String(byId.get(position.addon_to)?.positionid ?? position.addon_to),
      Price: position.price ?? '',
      'Attendee name': position.attendee_name ?? '',
      'Attendee email': position.attendee_email ?? '',
      Company: position.company ?? '',
      Address: position.street ?? '',
      'ZIP code': position.zipcode ?? '',
      City: position.city ?? '',
      Country: position.country ?? '',
      State: position.state ?? '',
    };
    for (const name of this.questions.values()) values[name] = '';
    for (const answer of position.answers) {
      const name = this.questions.get(answer.question);
      if (name !== undefined) values[name] = answer.answer ?? '';
    }
    return values;
  }
}

const text = z.string().nullish();
/** pretix writes prices as decimal strings; an older or edited export may hold numbers. */
const amount = z.union([z.string(), z.number().transform(String)]).nullish();

const positionSchema = z.looseObject({
  id: z.number(),
  positionid: z.number(),
  item: z.number().nullable(),
  variation: z.number().nullish().default(null),
  price: amount,
  attendee_name: text,
  attendee_email: text,
  company: text,
  street: text,
  zipcode: text,
  city: text,
  country: text,
  state: text,
  addon_to: z.number().nullish().default(null),
  answers: z
    .array(
      z.looseObject({
        question: z.number(),
        answer: z.union([z.string(), z.number().transform(String)]).nullish(),
      }),
    )
    .default([]),
});

const exportSchema = z.looseObject({
  event: z.looseObject({
    name: z.string().optional(),
    items: z.array(
      z.looseObject({
        id: z.number(),
        name: z.string(),
        admission: z.boolean().nullish(),
        variations: z.array(z.looseObject({ id: z.number(), name: z.string() })).default([]),
      }),
    ),
    questions: z.array(z.looseObject({ id: z.number(), question: z.string() })).default([]),
    orders: z.array(
      z.looseObject({
        code: z.string(),
        status: z.string(),
        testmode: z.boolean().nullish(),
        email: text,
        phone: text,
        datetime: text,
        positions: z.array(positionSchema),
      }),
    ),
  }),
});

/** The columns every row has, before the questions' (a question of one of these names is told by its id). */
const OWN_COLUMNS = [
  'Order code',
  'Position ID',
  'Status',
  'Test mode',
  'Email',
  'Phone number',
  'Order date',
  'Product',
  'Variation',
  'Admission',
  'Add-on to position ID',
  'Price',
  'Attendee name',
  'Attendee email',
  'Company',
  'Address',
  'ZIP code',
  'City',
  'Country',
  'State',
] as const;

async function readText(path: string, display: string): Promise<string> {
  try {
    const text = await readFile(path, 'utf8');
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new SourceError(
      missing
        ? `${display} does not exist: check the path (it is relative to the job file)`
        : `cannot read ${display}: ${messageOf(error)}`,
      { code: missing ? CODE.SOURCE_FILE_NOT_FOUND : CODE.SOURCE_FILE_UNREADABLE },
    );
  }
}

function parseExport(text: string, display: string): Export {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SourceError(
      `${display} is not valid JSON: ${messageOf(error)}: export it again or check the file`,
      {
        code: CODE.SOURCE_INVALID_JSON,
      },
    );
  }
  const parsed = exportSchema.safeParse(json);
  if (parsed.success) return parsed.data.event;
  const problems = parsed.error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join('.') || '(top)'}: ${issue.message}`)
    .join('; ');
  throw new SourceError(
    `${display} does not look like pretix's "Order data (JSON)" export (${problems}): export it from pretix (Orders → Export → Order data (JSON)), or give the source kind of the file it is`,
    { code: CODE.SOURCE_UNEXPECTED_SHAPE },
  );
}
