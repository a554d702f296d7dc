import { createRequire } from 'node:module';
import type { default as markdownIt, MarkdownIt } from 'markdown-it';
import { htmlToXhtml, isKnownHtmlElement } from './html-to-xhtml.js';

// An inline "tag" HTML does not know (`<your name>`, `<third>`) is text the author typed, as
// pretalx shows it: escaped, not unwrapped into nothing.
const INLINE_TAG = /^<\/?([A-Za-z][A-Za-z0-9-]*)/;

let built: MarkdownIt | undefined;

/**
 * The renderer, built on first use. Lazy: only mappings with `markdown_to_xhtml` (pretalx,
 * frab) need markdown-it, which took about 35 ms of every start to import. A transform is
 * synchronous, so the package is required (its CommonJS build) rather than imported.
 */
function markdown(): MarkdownIt {
  if (built !== undefined) return built;
  const MarkdownItClass = createRequire(import.meta.url)('markdown-it') as typeof markdownIt;
  // CommonMark with tables and strikethrough, raw HTML let through to the cleaner (pretalx and
  // frab texts mix Markdown with tags such as `<br>` and `<a>`); a single line break stays a
  // break, as the author saw it in a plain text box; bare URLs stay text and quotes stay as
  // typed (the text is the author's, only its markup is rendered).
  const renderer = new MarkdownItClass({
    html: true,
    breaks: true,
    xhtmlOut: true,
    linkify: false,
    typographer: false,
  });
  renderer.renderer.rules.html_inline = (tokens, index) => {
    const content = tokens[index]?.content ?? '';
    const name = INLINE_TAG.exec(content)?.[1];
    return name !== undefined && isKnownHtmlElement(name) ? content : renderer.utils.escapeHtml(content);
  };
  built = renderer;
  return renderer;
}

/**
 * A text that starts with a block-level tag is an HTML document (pentabarf/FOSDEM-style
 * frab exports), not Markdown: read as Markdown, its indented lines would become code.
 */
const HTML_DOCUMENT = /^\s*<(p|div|ul|ol|dl|h[1-6]|table|blockquote|pre|section|article|header|br|hr)[\s>/]/i;

/** The line breaks markdown-it writes after a block or a break, for looks only. */
const LAYOUT_NEWLINE =
  /(<br \/>|<hr \/>|<\/(?:p|h[1-6]|ul|ol|li|dl|dt|dd|blockquote|table|thead|tbody|tr|th|td|pre)>|<(?:ul|ol|li|blockquote|table|thead|tbody|tr)>)\n/g;

/**
 * Markdown (or an HTML document) → well-formed, safe XHTML. Whatever markdown-it renders,
 * raw HTML included, goes through {@link htmlToXhtml}, so the result obeys the same rules
 * as `html_to_xhtml` (docs/mapping.md, Transforms).
 */
export function markdownToXhtml(text: string): string {
  if (text.trim() === '') return '';
  if (HTML_DOCUMENT.test(text)) return htmlToXhtml(text);
  return htmlToXhtml(markdown().render(text.replace(/\r\n?/g, '\n')).replace(LAYOUT_NEWLINE, '$1'));
}
