import { XHTML_ENTITIES } from '../../platform/write-params/xhtml-entities.js';

/**
 * How one field is compared, as the platform shows values (docs/audit.md, "What is
 * compared"): a value that reads the same to a person is no drift, whatever its bytes.
 */
export type CompareAs = 'text' | 'instant' | 'xhtml' | 'tags' | 'json' | 'word' | 'number';

/**
 * The form two values are compared in, or '' for an absent or empty value: the mapping
 * leaves empty values out, and the platform answers `null`, `''` or `[]` for them.
 */
export function normalised(value: unknown, as: CompareAs): string {
  if (value === undefined || value === null) return '';
  switch (as) {
    case 'instant':
      return instant(textOf(value));
    case 'xhtml':
      return xhtmlText(textOf(value));
    case 'tags':
      return tagSet(value);
    case 'json':
      return canonicalJson(value);
    case 'word':
      return textOf(value).trim().toLowerCase();
    case 'number':
      return textOf(value).trim() === '' ? '' : String(Number(value));
    case 'text':
      return textOf(value).trim();
  }
}

/** A scalar as text; an object where a scalar was expected, as its JSON. */
function textOf(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? '';
}

/** Responses are UTC (§2.4) and the source may carry an offset: compare the instants. */
function instant(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  const ms = Date.parse(trimmed);
  return Number.isNaN(ms) ? trimmed : new Date(ms).toISOString();
}

/**
 * XHTML by its text (§2.4 `content`): the platform may re-serialise the markup (attribute
 * order, `<br/>` against `<br />`, entities), and a person reads the words. Tags become
 * spaces, entities their characters, runs of white space one space.
 */
export function xhtmlText(markup: string): string {
  return markup
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z][a-z0-9]*);/gi, (whole, name: string) => {
      if (name.startsWith('#x') || name.startsWith('#X'))
        return String.fromCodePoint(parseInt(name.slice(2), 16));
      if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)));
      const code = XHTML_ENTITIES[name] ?? XML_ENTITIES[name];
      return code === undefined ? whole : String.fromCodePoint(code);
    })
    .replace(/\s+/g, ' ')
    .trim();
}

const XML_ENTITIES: Record<string, number> = { amp: 38, lt: 60, gt: 62, quot: 34, apos: 39 };

/**
 * Tags as a set, without case: the source writes a comma-separated `tags_list`, the platform
 * answers `[{id, tag_name}]` in its own order.
 */
function tagSet(value: unknown): string {
  const names = Array.isArray(value)
    ? value.map((tag: unknown) =>
        typeof tag === 'object' && tag !== null
          ? textOf((tag as { tag_name?: unknown }).tag_name)
          : textOf(tag),
      )
    : textOf(value).split(',');
  const set = new Set(names.map((name) => name.trim().toLowerCase()).filter((name) => name !== ''));
  return [...set].sort().join(',');
}

/** Custom data is sent as a JSON string and answered as an object: compare the objects. */
function canonicalJson(value: unknown): string {
  let parsed: unknown = value;
  if (typeof value === 'string') {
    if (value.trim() === '') return '';
    try {
      parsed = JSON.parse(value) as unknown;
    } catch {
      return value.trim();
    }
  }
  const text = JSON.stringify(sortKeys(parsed));
  return text === '{}' ? '' : text;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}
