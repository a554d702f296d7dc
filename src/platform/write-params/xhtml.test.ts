import fc from 'fast-check';
import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';

import { checkWellFormedXhtml, isWellFormedXhtml, xhtmlFragmentSchema } from './xhtml.js';
import { XHTML_ENTITIES, XML_PREDEFINED_ENTITIES } from './xhtml-entities.js';

describe('checkWellFormedXhtml', () => {
  it.each([
    '',
    'plain text, no markup > at all',
    '<p>One</p><p>Two</p>',
    '<p>Ada &amp; Grace &lt;3 &gt; &quot;x&quot; &apos;y&apos;</p>',
    '<p>&#160;&#xA0;&#x1F600;</p>',
    '<p>caf&eacute; &nbsp; &mdash; &euro; &hellip;</p>',
    '<br/><hr /><img src="a.png" alt=\'an "image"\'/>',
    '<a href="https://example.com/?a=1&amp;b=2" title="x &gt; y">link</a>',
    '<p\n  class="lead"\n>multi\nline</p>',
    '<!-- a comment --><p>x</p>',
    '<![CDATA[ <not> & markup ]]>',
    '<?php-free processing instruction?>',
    '<ul><li>one</li><li><em>two</em></li></ul>',
    '<p>emoji 😀 and 漢字</p>',
    '<p title="😀 𐀀 漢">astral characters in attributes</p>',
    '<svg:rect xmlns:svg="http://www.w3.org/2000/svg" width="1"/>',
    '<p>a ] b ]] c</p>',
    '<p attr = "spaced">x</p >',
    '<blink>vocabulary is not checked</blink>',
  ])('accepts %j', (fragment) => {
    expect(checkWellFormedXhtml(fragment)).toEqual({ ok: true });
  });

  it.each([
    ['<p>unclosed', '<p> is never closed', 1, 1],
    ['<p><b>x</p></b>', '<b> at line 1, column 4 is closed by </p>', 1, 8],
    ['</p>', '</p> closes a tag that was never opened', 1, 1],
    ['<p>a & b</p>', 'a bare "&" must be written "&amp;"', 1, 6],
    ['<p>&bogus;</p>', 'unknown entity &bogus;', 1, 4],
    ['<p>&#0;</p>', '&#0; is not an allowed XML character', 1, 4],
    ['<p>&#xD800;</p>', '&#xD800; is not an allowed XML character', 1, 4],
    ['<p>a < b</p>', '"<" must start a tag', 1, 6],
    ['<p class=lead>x</p>', 'must be in quotes', 1, 10],
    ['<p class>x</p>', 'needs a quoted value', 1, 9],
    ['<p a="1" a="2">x</p>', 'attribute a appears twice', 1, 10],
    ['<p a="1"b="2">x</p>', 'expected a space', 1, 9],
    ['<p a="x<y">z</p>', '"<" is not allowed in the value of attribute a', 1, 8],
    ['<p a="1>x', 'the value of attribute a is never closed', 1, 4],
    ['<p a="&nope;">x</p>', 'unknown entity &nope;', 1, 7],
    ['<!DOCTYPE html><p>x</p>', 'DOCTYPE', 1, 1],
    ['<?xml version="1.0"?><p>x</p>', 'XML declaration', 1, 1],
    ['<!-- a -- b -->', '"--" is not allowed inside a comment', 1, 1],
    ['<!-- never closed', 'comment is never closed', 1, 1],
    ['<![CDATA[ x', 'CDATA section is never closed', 1, 1],
    ['a ]]> b', '"]]>" is not allowed in text', 1, 3],
    ['<p>bell \u0007</p>', 'character U+0007 is not allowed', 1, 9],
    ['<p>lone \uD800 surrogate</p>', 'character U+D800 is not allowed', 1, 9],
    ['<p a="x\uDC00">y</p>', 'character U+DC00 is not allowed', 1, 8],
    ['<p\n>one\n<b>two</p>', '<b> at line 3, column 1 is closed by </p>', 3, 7],
    ['<p>\r\n<i>x\r\n</p>', '<i> at line 2, column 1 is closed by </p>', 3, 1],
    ['<1p>x</1p>', '"<" must start a tag', 1, 1],
    ['<p', 'tag <p> is never finished', 1, 1],
    ['</p', 'closing tag </p> is not finished', 1, 4],
  ])('refuses %j: %s', (fragment, reason, line, column) => {
    const check = checkWellFormedXhtml(fragment);
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.reason).toContain(reason);
    expect({ line: check.line, column: check.column }).toEqual({ line, column });
  });

  it('accepts XHTML named entities by default and only the XML five when asked', () => {
    expect(isWellFormedXhtml('&nbsp;')).toBe(true);
    expect(checkWellFormedXhtml('&nbsp;', { namedEntities: 'xml' }).ok).toBe(false);
    expect(checkWellFormedXhtml('&amp;&lt;&gt;&quot;&apos;&#160;', { namedEntities: 'xml' }).ok).toBe(true);
  });

  it('knows the 253 XHTML 1.0 entities, the XML five among them', () => {
    expect(Object.keys(XHTML_ENTITIES)).toHaveLength(253);
    for (const name of XML_PREDEFINED_ENTITIES) expect(XHTML_ENTITIES).toHaveProperty(name);
    expect(XHTML_ENTITIES).toMatchObject({
      nbsp: 160,
      eacute: 233,
      euro: 8364,
      mdash: 8212,
      hellip: 8230,
      apos: 39,
    });
    for (const name of Object.keys(XHTML_ENTITIES)) expect(isWellFormedXhtml(`&${name};`)).toBe(true);
  });

  it('is usable as a zod schema', () => {
    const result = xhtmlFragmentSchema.safeParse('<p>x');
    expect(result.error?.issues[0]?.message).toBe(
      'not well-formed XHTML: <p> is never closed (line 1, column 1)',
    );
  });

  // Random trees of elements, attributes, text and references: what we call well-formed,
  // an independent XML parser must too; and unbalancing one tag must make both refuse.
  const name = fc.constantFrom('p', 'b', 'em', 'a', 'div', 'span', 'x:y', 'h1');
  const text = fc.string({ unit: 'binary', maxLength: 12 }).map((s) =>
    s
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/[^\P{Cc}\t\n\r]|\p{Cs}|[\uFFFE\uFFFF]/gu, '')
      .replace(/]]>/g, ''),
  );
  const reference = fc.constantFrom('&amp;', '&lt;', '&#233;', '&#x1F600;', '&quot;');
  const attrs = fc
    .uniqueArray(fc.constantFrom('id', 'class', 'href', 'title'), { maxLength: 3 })
    .chain((names) =>
      fc.tuple(fc.constant(names), fc.array(text, { minLength: names.length, maxLength: names.length })),
    )
    .map(([names, values]) =>
      names.map((n, i) => ` ${n}="${(values[i] ?? '').replace(/"/g, '&quot;')}"`).join(''),
    );
  const { node } = fc.letrec<{ node: string }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      text,
      reference,
      fc.tuple(name, attrs).map(([n, a]) => `<${n}${a}/>`),
      fc
        .tuple(name, attrs, fc.array(tie('node'), { maxLength: 4 }))
        .map(([n, a, kids]) => `<${n}${a}>${kids.join('')}</${n}>`),
    ),
  }));
  const fragment = fc.array(node, { maxLength: 4 }).map((nodes) => nodes.join(''));

  it('agrees with fast-xml-parser on generated well-formed fragments', () => {
    fc.assert(
      fc.property(fragment, (xml) => {
        expect(checkWellFormedXhtml(xml)).toEqual({ ok: true });
        expect(XMLValidator.validate(`<root>${xml}</root>`)).toBe(true);
      }),
    );
  });

  it('refuses every generated fragment with one extra opening tag', () => {
    fc.assert(
      fc.property(fragment, fragment, name, (before, after, extra) => {
        const broken = `${before}<${extra}>${after}`;
        expect(checkWellFormedXhtml(broken).ok).toBe(false);
        expect(XMLValidator.validate(`<root>${broken}</root>`)).not.toBe(true);
      }),
    );
  });
});
