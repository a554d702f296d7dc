import { createRequire } from 'node:module';
import type { Parser } from 'htmlparser2';
import { escapeXmlAttribute, escapeXmlText } from './xhtml-text.js';

/** Elements dropped with everything inside them: code, styling and embedded content. */
const DROPPED = new Set([
  'script',
  'style',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'noscript',
  'template',
  'head',
  'title',
  'meta',
  'link',
  'base',
  'svg',
  'math',
  'form',
  'input',
  'button',
  'select',
  'textarea',
  'canvas',
  'audio',
  'video',
  'source',
  'track',
]);

/** Elements kept (with the attributes listed); any other element is unwrapped to its content. */
const KEPT: Record<string, readonly string[]> = {
  p: [],
  br: [],
  hr: [],
  div: [],
  span: [],
  b: [],
  strong: [],
  i: [],
  em: [],
  u: [],
  s: [],
  strike: [],
  del: [],
  ins: [],
  sub: [],
  sup: [],
  small: [],
  code: [],
  pre: [],
  kbd: [],
  blockquote: ['cite'],
  q: ['cite'],
  cite: [],
  abbr: ['title'],
  h1: [],
  h2: [],
  h3: [],
  h4: [],
  h5: [],
  h6: [],
  ul: [],
  ol: ['start'],
  li: [],
  dl: [],
  dt: [],
  dd: [],
  a: ['href', 'title'],
  img: ['src', 'alt', 'title', 'width', 'height'],
  table: [],
  thead: [],
  tbody: [],
  tfoot: [],
  tr: [],
  th: ['colspan', 'rowspan'],
  td: ['colspan', 'rowspan'],
  caption: [],
};
const VOID = new Set(['br', 'hr', 'img']);

/** Whether the cleaner knows `name` (keeps it, or drops it with its content). */
export function isKnownHtmlElement(name: string): boolean {
  const lower = name.toLowerCase();
  return KEPT[lower] !== undefined || DROPPED.has(lower);
}
const URL_ATTRIBUTES = new Set(['href', 'src', 'cite']);
const COMMON_ATTRIBUTES = ['lang', 'dir'];

/**
 * HTML as CfP tools and rich-text editors write it → well-formed, safe XHTML: scripts,
 * styles and embedded content dropped, event handlers, `style` and script URLs removed,
 * unknown elements unwrapped, void elements closed, every open element closed.
 */
export function htmlToXhtml(html: string): string {
  let out = '';
  const open: string[] = [];
  let droppedDepth = 0;
  const parser = new (parserClass())(
    {
      onopentag(name, attributes) {
        // htmlparser2 reports a close for every open, void and implied ones included.
        if (droppedDepth > 0 || DROPPED.has(name)) {
          droppedDepth++;
          return;
        }
        const allowed = KEPT[name];
        if (allowed === undefined) return;
        out += `<${name}${safeAttributes(attributes, allowed)}${VOID.has(name) ? '/>' : '>'}`;
        if (!VOID.has(name)) open.push(name);
      },
      ontext(text) {
        if (droppedDepth === 0) out += escapeXmlText(text);
      },
      onclosetag(name) {
        if (droppedDepth > 0) {
          droppedDepth--;
          return;
        }
        if (VOID.has(name) || KEPT[name] === undefined) return;
        const at = open.lastIndexOf(name);
        if (at === -1) return;
        while (open.length > at) out += `</${open.pop()}>`;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: true },
  );
  parser.write(html);
  parser.end();
  while (open.length > 0) out += `</${open.pop()}>`;
  return out.trim();
}

let loadedParser: typeof Parser | undefined;

/**
 * htmlparser2's Parser, loaded by the first text with HTML in it. Lazy: mappings compile
 * every transform, but most runs clean no HTML, and htmlparser2 (with domhandler, domutils
 * and entities) took about 30 ms of every start to import. A transform is synchronous, so
 * the package is required (its CommonJS build) rather than imported; nothing else in the
 * program loads htmlparser2.
 */
function parserClass(): typeof Parser {
  loadedParser ??= (createRequire(import.meta.url)('htmlparser2') as { Parser: typeof Parser }).Parser;
  return loadedParser;
}

function safeAttributes(attributes: Record<string, string>, allowed: readonly string[]): string {
  let text = '';
  for (const [name, value] of Object.entries(attributes)) {
    if (!allowed.includes(name) && !COMMON_ATTRIBUTES.includes(name)) continue;
    if (URL_ATTRIBUTES.has(name) && !isSafeUrl(value)) continue;
    text += ` ${name}="${escapeXmlAttribute(value)}"`;
  }
  return text;
}

/** Relative URLs and http(s), mailto, tel; never javascript:, vbscript: or data:. */
function isSafeUrl(url: string): boolean {
  // Browsers ignore control characters and whitespace inside a scheme (`java\tscript:`).
  // eslint-disable-next-line no-control-regex
  const compact = url.replace(/[\u0000-\u0020\u007F]/g, '').toLowerCase();
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(compact)?.[1];
  return scheme === undefined || ['http', 'https', 'mailto', 'tel'].includes(scheme);
}
