import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkWellFormedXhtml } from '../../platform/write-params/xhtml.js';
import { markdownToXhtml } from './markdown-to-xhtml.js';

describe('markdownToXhtml', () => {
  it('renders Markdown: emphasis, links, lists, headings, code', () => {
    const out = markdownToXhtml(
      '## Outline\n\nWe **build** a [box](https://festi.info/boxes.py/) in `Python`:\n\n- cut\n- fold\n',
    );
    expect(out).toBe(
      '<h2>Outline</h2><p>We <strong>build</strong> a <a href="https://festi.info/boxes.py/">box</a> in <code>Python</code>:</p><ul><li>cut</li><li>fold</li></ul>',
    );
  });

  it('reads plain text as paragraphs, its single line breaks as breaks, and escapes it', () => {
    expect(markdownToXhtml('First line\r\nsecond & <third>\r\n\r\nNext paragraph')).toBe(
      '<p>First line<br/>second &amp; &lt;third&gt;</p><p>Next paragraph</p>',
    );
    expect(markdownToXhtml('5 < 6 and AT&T')).toBe('<p>5 &lt; 6 and AT&amp;T</p>');
  });

  it('cleans raw HTML inside Markdown like html_to_xhtml', () => {
    const out = markdownToXhtml(
      'See <a href="javascript:alert(1)" onclick="x()">this</a><script>alert(2)</script> and <b>that</b>.',
    );
    expect(out).toBe('<p>See <a>this</a> and <b>that</b>.</p>');
  });

  it('reads a text that starts with a block tag as an HTML document, not as Markdown', () => {
    expect(markdownToXhtml('<p>Intro</p>\n\n    <ul><li>indented</li></ul>\n<p>a * b * c</p>')).toBe(
      '<p>Intro</p>\n\n    <ul><li>indented</li></ul>\n<p>a * b * c</p>',
    );
  });

  it('renders a loose list without layout line breaks', () => {
    expect(markdownToXhtml('- a\n\n- b')).toBe('<ul><li><p>a</p></li><li><p>b</p></li></ul>');
  });

  it('keeps the line breaks of a code block', () => {
    expect(markdownToXhtml('```\na <b>\n  b\n```')).toBe('<pre><code>a &lt;b&gt;\n  b\n</code></pre>');
  });

  it('decodes entities once: an escaped tag stays visible text', () => {
    expect(markdownToXhtml('Use &lt;p&gt; and &amp;amp; here')).toBe(
      '<p>Use &lt;p&gt; and &amp;amp; here</p>',
    );
  });

  it('leaves empty text empty (no param is sent)', () => {
    expect(markdownToXhtml('  \n ')).toBe('');
  });

  it('always yields well-formed XHTML, whatever the input', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constantFrom(
              '**',
              '_',
              '`',
              '\n',
              '\n\n',
              '    ',
              '- ',
              '1. ',
              '# ',
              '> ',
              '[a](',
              ')',
              '<p>',
            ),
            fc.constantFrom('<b>', '</b>', '<br>', '<a href="x">', '&amp;', '&', '<', '|a|b|\n|-|-|\n'),
            fc.string(),
          ),
        ),
        (parts) => {
          const check = checkWellFormedXhtml(markdownToXhtml(parts.join('')));
          expect(check).toEqual({ ok: true });
        },
      ),
    );
  });
});
