import { isoSeconds } from '../clock.js';

/**
 * Rails-style XML of spec §2.1 from the JSON shapes: hyphenated names, `type=` for
 * integers, floats, booleans, arrays and date-times, `nil="true"` for nulls. The JSON time
 * objects of check-ins (`json_class: Time`) and ISO strings under `*_on`/`*_at` names
 * become `type="datetime"`.
 */
export function toXmlDocument(root: string, value: unknown): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${element(root, value)}\n`;
}

function element(name: string, value: unknown): string {
  const tag = xmlName(name);
  if (value === null || value === undefined) return `<${tag} nil="true"/>`;
  if (typeof value === 'number') {
    return `<${tag} type="${Number.isInteger(value) ? 'integer' : 'float'}">${value}</${tag}>`;
  }
  if (typeof value === 'boolean') return `<${tag} type="boolean">${value}</${tag}>`;
  if (typeof value === 'string') {
    if (/_(on|at)$/.test(name) && /^\d{4}-\d{2}-\d{2}T/.test(value)) {
      return `<${tag} type="datetime">${escapeXml(value)}</${tag}>`;
    }
    return `<${tag}>${escapeXml(value)}</${tag}>`;
  }
  if (Array.isArray(value)) {
    const itemName = singular(name);
    return `<${tag} type="array">${value.map((item) => element(itemName, item)).join('')}</${tag}>`;
  }
  const object = value as Record<string, unknown>;
  if (object.json_class === 'Time' && typeof object.s === 'number') {
    const micros = object.s * 1_000_000 + Math.floor(Number(object.n ?? 0) / 1000);
    return `<${tag} type="datetime">${isoSeconds(micros)}</${tag}>`;
  }
  // Arbitrary JSON under custom_data cannot be trusted to have XML-safe keys: keep it as JSON text.
  if (name === 'custom_data') return `<${tag}>${escapeXml(JSON.stringify(object))}</${tag}>`;
  const children = Object.entries(object)
    .map(([key, child]) => element(key, child))
    .join('');
  return `<${tag}>${children}</${tag}>`;
}

function singular(name: string): string {
  if (name.endsWith('ies')) return `${name.slice(0, -3)}y`;
  if (name.endsWith('sses') || name.endsWith('shes')) return name.slice(0, -2);
  if (name.endsWith('s')) return name.slice(0, -1);
  return `${name}-item`;
}

function xmlName(name: string): string {
  const hyphenated = name.replace(/_/g, '-').replace(/[^A-Za-z0-9.-]/g, '-');
  return /^[A-Za-z]/.test(hyphenated) ? hyphenated : `x-${hyphenated}`;
}

export function escapeXml(text: string): string {
  return (
    text
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      // Characters XML 1.0 cannot carry at all are dropped rather than producing a broken document.
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
  );
}
