/**
 * Removes characters XML 1.0 forbids (C0 controls but tab, LF, CR; lone surrogates;
 * U+FFFE/F): exports carry them now and then, and one makes the whole document ill-formed.
 */
export function stripNonXmlChars(text: string): string {
  let out = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    let bad =
      (unit < 0x20 && unit !== 0x09 && unit !== 0x0a && unit !== 0x0d) || unit === 0xfffe || unit === 0xffff;
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      else bad = true;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) {
      bad = true;
    }
    if (bad) {
      out += text.slice(start, i);
      start = i + 1;
    }
  }
  return start === 0 ? text : out + text.slice(start);
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
