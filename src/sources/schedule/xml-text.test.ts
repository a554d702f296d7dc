import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dedentContinuation } from './frab-xml.js';
import { checkWellFormedXml, decodeXmlReferences } from './xml-text.js';

const EXCERPT = join(import.meta.dirname, '../../../test/fixtures/mappings/frab-38c3-excerpt.xml');

describe('decodeXmlReferences', () => {
  it('decodes decimal and hex character references, astral ones included', () => {
    expect(decodeXmlReferences('Gr&#252;&#223;e&#13;\n&#x263A; &#x1F600; &#X41;')).toBe('Grüße\r\n☺ 😀 A');
  });

  it('decodes the five XML entities in the same single pass: nothing is decoded twice', () => {
    expect(decodeXmlReferences('&lt;p&gt; &amp;#228; &amp;amp; &quot;&apos;')).toBe('<p> &#228; &amp; "\'');
  });

  it('turns a reference to no character into U+FFFD and leaves HTML-only names as written', () => {
    expect(decodeXmlReferences('a&#0;b&#xD800;c&#1114112;d')).toBe('a\uFFFDb\uFFFDc\uFFFDd');
    expect(decodeXmlReferences('&nbsp;&copy; & &#;')).toBe('&nbsp;&copy; & &#;');
  });
});

describe('checkWellFormedXml', () => {
  const xml = readFileSync(EXCERPT, 'utf8');

  it('names a file cut inside a description as cut short, at its last line, with what is open', () => {
    const cut = xml.slice(0, xml.indexOf('We will look at'));
    const lastLine = cut.trimEnd().split('\n').length;
    expect(() => checkWellFormedXml(cut, 'frab schedule x.xml')).toThrow(
      `frab schedule x.xml is cut short: it ends at line ${lastLine} inside <schedule> › <day> › <room> › <event> › <description>: download or export it again`,
    );
  });

  it('names a file cut inside a tag as cut short at its last line', () => {
    const cut = xml.slice(0, xml.indexOf('</language>') + 5);
    expect(() => checkWellFormedXml(cut, 'x.xml')).toThrow(
      `x.xml is cut short: it ends at line ${cut.split('\n').length}: download or export it again`,
    );
  });

  it('gives the line, the column and a plain reason for a fault inside the file', () => {
    expect(() => checkWellFormedXml('<a>\n  <b>\n  </a>\n</a>\n', 'x.xml')).toThrow(
      'x.xml is not well-formed XML at line 3, column 3: </a> closes nothing open here: <b> (line 2) is still open: fix the file or export it again',
    );
    expect(() => checkWellFormedXml('<a>\n Q&A\n</a>\n<b/>\n', 'x.xml')).toThrow(
      'a bare "&" (an ampersand is written "&amp;" in XML)',
    );
  });
});

describe('dedentContinuation', () => {
  it('removes the indentation every line after the first shares, and only that', () => {
    expect(
      dedentContinuation(
        'Intro:\n\n                    - a\n                      more\n                    - b',
      ),
    ).toBe('Intro:\n\n- a\n  more\n- b');
    expect(dedentContinuation('one\ntwo\n    code')).toBe('one\ntwo\n    code');
    expect(dedentContinuation('single line')).toBe('single line');
  });
});
