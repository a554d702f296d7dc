import { XMLParser } from 'fast-xml-parser';
import type { UncarriedColumns } from './schedule-records.js';
import { checkWellFormedXml, decodeXmlReferences } from './xml-text.js';

const LISTS = new Set(['day', 'room', 'event', 'person', 'link']);

// Entities are decoded by decodeXmlReferences, once, on every text and attribute: the
// parser's own decoding leaves character references (`&#228;`) as they are written.
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  textNodeName: '#text',
  cdataPropName: '#cdata',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: false,
  isArray: (name) => LISTS.has(name),
});

type XmlNode = Record<string, unknown>;

const asNode = (value: unknown): XmlNode =>
  typeof value === 'object' && value !== null ? (value as XmlNode) : {};
const asList = (value: unknown): XmlNode[] => (Array.isArray(value) ? value.map(asNode) : []);
/** An attribute's value, decoded. */
const attribute = (node: XmlNode, name: string): string | undefined => {
  const value = node[name];
  return typeof value === 'string' ? decodeXmlReferences(value) : undefined;
};
/** An element's text, decoded, whether the parser gave a string or an object (attributes, CDATA). */
const textOf = (value: unknown): string | undefined => {
  if (typeof value === 'string') return decodeXmlReferences(dedentContinuation(value));
  const node = asNode(value);
  const text =
    typeof node['#text'] === 'string' ? decodeXmlReferences(dedentContinuation(node['#text'])) : undefined;
  const cdata = node['#cdata'];
  const cdataText = Array.isArray(cdata) ? cdata.join('') : typeof cdata === 'string' ? cdata : undefined;
  return text === undefined && cdataText === undefined ? undefined : `${text ?? ''}${cdataText ?? ''}`;
};

/**
 * Some exporters pretty-print text content too: every line after the first of a
 * description is indented like the XML around it (the 38C3 hub export indents them by 20
 * spaces), which Markdown would read as a code block. The indentation all those lines
 * share is the printer's, not the author's, and is removed.
 */
export function dedentContinuation(text: string): string {
  if (!text.includes('\n')) return text;
  const [first = '', ...rest] = text.split('\n');
  let common = Infinity;
  for (const line of rest) {
    if (line.trim() === '') continue;
    common = Math.min(common, /^[ \t]*/.exec(line)![0].length);
  }
  if (common === Infinity || common === 0) return text;
  return [first, ...rest.map((line) => line.slice(Math.min(common, /^[ \t]*/.exec(line)![0].length)))].join(
    '\n',
  );
}

/**
 * What frab's XML (and pretalx's, which follows it) never writes of a person, which the
 * c3voc JSON does: avatars, links and answers, and biographies unless the export has a
 * top-level `<persons>` list (FOSDEM's); of a session, its answers. Read from such an
 * export, these columns are `''` whatever the schedule says.
 */
function uncarriedByXml(personList: boolean): UncarriedColumns {
  const links = ['website', 'twitter', 'linkedin', 'blog', 'links'];
  return {
    session: ['answers'],
    speaker: [...(personList ? [] : ['bio']), 'photo_url', ...links, 'answers'],
  };
}

/**
 * frab's schedule XML turned into the c3voc JSON shape (same fields, same nesting), so one
 * converter serves both exports, with the columns the XML cannot carry (see
 * {@link uncarriedByXml}). Each event carries `source_line`, the line of its `<event>` tag,
 * for messages.
 */
export function frabXmlToC3voc(
  xml: string,
  where: string,
): { schedule: unknown; uncarried: UncarriedColumns } {
  checkWellFormedXml(xml, where);
  const root = asNode(asNode(parser.parse(xml)).schedule);
  const conference = asNode(root.conference);
  const people = peopleList(root.persons);
  // An empty `<persons/>` is still the list: its people have no biography.
  const personList = 'persons' in root;
  const events: Record<string, unknown>[] = [];
  const days = asList(root.day).map((day) => {
    const rooms: Record<string, unknown[]> = {};
    for (const room of asList(day.room)) {
      const name = attribute(room, 'name') ?? '';
      const list = asList(room.event).map((event) => toEvent(event, people));
      events.push(...list);
      rooms[name] = [...(rooms[name] ?? []), ...list];
    }
    return {
      date: attribute(day, 'date'),
      day_start: attribute(day, 'start'),
      day_end: attribute(day, 'end'),
      rooms,
    };
  });
  // Document order is parse order for events under day/room; any other count means an
  // event somewhere else, and then no line is given rather than a wrong one.
  const lines = eventTagLines(xml);
  if (lines.length === events.length) events.forEach((event, index) => (event.source_line = lines[index]));
  return {
    schedule: {
      schedule: {
        conference: {
          title: textOf(conference.title),
          time_zone_name: textOf(conference.time_zone_name),
          day_change: textOf(conference.day_change),
          days,
        },
      },
    },
    uncarried: uncarriedByXml(personList),
  };
}

/** What a top-level person of the export says beyond the name an event gives. */
interface ListedPerson {
  biography?: string | undefined;
}

/**
 * The export's top-level `<persons>` list, by person id: FOSDEM's pretalx-made XML keeps the
 * biographies there (`<person id><name/><biography/><extended_biography/></person>`),
 * while its events name people only by id.
 */
function peopleList(persons: unknown): Map<string, ListedPerson> {
  const byId = new Map<string, ListedPerson>();
  for (const person of asList(asNode(persons).person)) {
    const id = attribute(person, 'id');
    if (id === undefined || id === '') continue;
    const biography = [person.biography, person.extended_biography]
      .map(textOf)
      .find((text) => text !== undefined && text.trim() !== '');
    byId.set(id, { biography });
  }
  return byId;
}

function toEvent(event: XmlNode, people: ReadonlyMap<string, ListedPerson>): Record<string, unknown> {
  const fields = [
    'date',
    'start',
    'duration',
    'room',
    'title',
    'subtitle',
    'track',
    'type',
    'language',
    'abstract',
    'description',
    'url',
  ];
  const copy: Record<string, unknown> = { id: attribute(event, 'id'), guid: attribute(event, 'guid') };
  for (const field of fields) copy[field] = textOf(event[field]);
  copy.persons = asList(asNode(event.persons).person).map((person) => {
    const id = attribute(person, 'id');
    return {
      id,
      guid: attribute(person, 'guid'),
      code: attribute(person, 'code'),
      public_name: textOf(person),
      biography: id === undefined ? undefined : people.get(id)?.biography,
    };
  });
  return copy;
}

/** The 1-based line of every `<event>` start tag, in document order (comments and CDATA skipped). */
function eventTagLines(xml: string): number[] {
  const lines: number[] = [];
  let line = 1;
  let counted = 0;
  for (const match of xml.matchAll(/<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<event[\s>/]/g)) {
    if (!match[0].startsWith('<event')) continue;
    for (let at = xml.indexOf('\n', counted); at !== -1 && at < match.index; at = xml.indexOf('\n', at + 1))
      line++;
    counted = match.index;
    lines.push(line);
  }
  return lines;
}
