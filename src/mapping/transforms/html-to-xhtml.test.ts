import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkWellFormedXhtml } from '../../platform/write-params/xhtml.js';
import { htmlToXhtml } from './html-to-xhtml.js';
import { textToXhtml } from './xhtml-text.js';

describe('htmlToXhtml', () => {
  it('removes scripts, styles and embedded content with what is inside them', () => {
    expect(
      htmlToXhtml('<p>a<script>alert(1)</script>b<style>p{}</style><iframe src="x">c</iframe></p>'),
    ).toBe('<p>ab</p>');
  });

  it('removes event attributes, style and script URLs, keeps safe links', () => {
    const out = htmlToXhtml(
      '<a href="javascript:alert(1)" onclick="x()">a</a><a href=" JaVa\tScRiPt:x">b</a><a href="https://x.org/?a=1&b=2" style="color:red">c</a><img src="data:image/png;base64,xx" onerror="y" alt="d">',
    );
    expect(out).toBe('<a>a</a><a>b</a><a href="https://x.org/?a=1&amp;b=2">c</a><img alt="d"/>');
    expect(out).not.toMatch(/on\w+=|javascript|style=|data:/i);
  });

  it('closes what HTML leaves open (as browsers do) and closes void elements', () => {
    expect(htmlToXhtml('<ul><li>one<li>two</ul><p>x<br>y<hr><i>open')).toBe(
      '<ul><li>one</li><li>two</li></ul><p>x<br/>y</p><hr/><i>open</i>',
    );
  });

  it('unwraps unknown elements and decodes entities into escaped text', () => {
    expect(
      htmlToXhtml('<html><body><font color=red>&eacute;t&eacute; &amp; <b>5 &lt; 6</b></font></body></html>'),
    ).toBe('été &amp; <b>5 &lt; 6</b>');
  });

  it('always yields well-formed XHTML, whatever the input', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constantFrom(
              '<p>',
              '</p>',
              '<b>',
              '</i>',
              '<br>',
              '<a href="x">',
              '<script>',
              '&amp;',
              '&',
              '<',
              '>',
              '"',
              '\u0001',
              '<!--',
              ']]>',
            ),
            fc.string(),
          ),
          { maxLength: 30 },
        ),
        (parts) => {
          const out = htmlToXhtml(parts.join(''));
          expect(checkWellFormedXhtml(out)).toEqual({ ok: true });
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('textToXhtml', () => {
  it('escapes, makes paragraphs of blank-line blocks and <br/> of single breaks', () => {
    expect(textToXhtml('Fish & chips <3\r\nfor two\r\n\r\n\r\nSecond "para"')).toBe(
      '<p>Fish &amp; chips &lt;3<br/>for two</p><p>Second "para"</p>',
    );
    expect(textToXhtml('   \n\n  ')).toBe('');
  });

  it('drops characters XML cannot hold', () => {
    expect(textToXhtml('a\u0000b\u000bc\ud800d')).toBe('<p>abcd</p>');
  });

  it('always yields well-formed XHTML', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(checkWellFormedXhtml(textToXhtml(text))).toEqual({ ok: true });
      }),
      { numRuns: 200 },
    );
  });
});
