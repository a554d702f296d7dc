import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { CODE } from '../../errors/codes.js';
import { SourceError } from '../source-error.js';

const LISTS = new Set(['day', 'room', 'event', 'person', 'link']);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  textNodeName: '#text',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  isArray: (name) => LISTS.has(name),
});

type XmlNode = Record<string, unknown>;

const asNode = (value: unknown): XmlNode =>
  typeof value === 'object' && value !== null ? (value as XmlNode) : {};
const asList = (value: unknown): XmlNode[] => (Array.isArray(value) ? value.map(asNode) : []);
/** An element's text, whether the parser gave a string or an object with attributes. */
const textOf = (value: unknown): string | undefined => {
  if (typeof value === 'string') return value;
  const inner = asNode(value)['#text'];
  return typeof inner === 'string' ? inner : undefined;
};

/**
 * frab's schedule XML turned into the c3voc JSON shape (same fields, same nesting), so one
 * converter serves both exports.
 */
export function frabXmlToC3voc(xml: string, where: string): unknown {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    throw new SourceError(`${where} is not well-formed XML (line ${valid.err.line}): ${valid.err.msg}`, {
      code: CODE.SCHEDULE_INVALID_XML,
    });
  }
  const root = asNode(asNode(parser.parse(xml)).schedule);
  const conference = asNode(root.conference);
  const days = asList(root.day).map((day) => {
    const rooms: Record<string, unknown[]> = {};
    for (const room of asList(day.room)) {
      const name = typeof room.name === 'string' ? room.name : '';
      rooms[name] = [...(rooms[name] ?? []), ...asList(room.event).map(toEvent)];
    }
    return { date: day.date, rooms };
  });
  return {
    schedule: {
      conference: {
        title: textOf(conference.title),
        time_zone_name: textOf(conference.time_zone_name),
        days,
      },
    },
  };
}

function toEvent(event: XmlNode): Record<string, unknown> {
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
  const copy: Record<string, unknown> = { id: event.id, guid: event.guid };
  for (const field of fields) copy[field] = textOf(event[field]);
  copy.persons = asList(asNode(event.persons).person).map((person) => ({
    id: person.id,
    guid: person.guid,
    code: person.code,
    public_name: textOf(person),
  }));
  return copy;
}
