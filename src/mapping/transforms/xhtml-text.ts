// Characters XML 1.0 forbids (C0 controls but tab, LF, CR; lone surrogates; U+FFFE/F):
// exports carry them now and then, and one of them makes the whole document ill-formed.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const NOT_XML_CHAR = new RegExp(
  '[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\uFFFE\\uFFFF]|[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]',
  'g',
);

/** Removes characters that cannot appear in XML at all. */
export function stripNonXmlChars(text: string): string {
  return text.replace(NOT_XML_CHAR, '');
}

/** Escapes text for an XHTML element's content. */
export function escapeXmlText(text: string): string {
  return stripNonXmlChars(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Escapes text for a double-quoted XHTML attribute value. */
export function escapeXmlAttribute(text: string): string {
  return escapeXmlText(text)
    .replace(/"/g, '&quot;')
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;');
}

/**
 * Plain text → well-formed XHTML: escaped, blank lines separate `<p>` paragraphs, single
 * line breaks become `<br/>`. Empty text stays empty (no param is sent).
 */
export function textToXhtml(text: string): string {
  const paragraphs = text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n+/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== '');
  return paragraphs
    .map(
      (paragraph) =>
        `<p>${paragraph
          .split(/[ \t]*\n[ \t]*/)
          .map(escapeXmlText)
          .join('<br/>')}</p>`,
    )
    .join('');
}
