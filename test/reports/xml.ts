// A small strict XML well-formedness checker and tree builder, so the JUnit test needs no parser
// dependency. It rejects what CI parsers choke on: bad entities, raw '<' or '&', mismatched or
// unclosed tags, duplicate attributes, characters XML 1.0 forbids, more than one root.

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const NAME = /^[A-Za-z_:][A-Za-z0-9_.:-]*/;
const BAD_CHAR = /[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const ENTITY = /&(?:(amp|lt|gt|quot|apos)|#(\d+)|#x([0-9A-Fa-f]+));/y;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export class XmlError extends Error {}

function decode(s: string, where: number): string {
  let out = '';
  for (let i = 0; i < s.length;) {
    const c = s[i]!;
    if (c === '&') {
      ENTITY.lastIndex = i;
      const m = ENTITY.exec(s);
      if (!m) throw new XmlError(`bad entity at ${where + i}: ${s.slice(i, i + 12)}`);
      out += m[1] ? NAMED[m[1]] : String.fromCodePoint(parseInt(m[2] ?? m[3]!, m[2] ? 10 : 16));
      i += m[0].length;
    } else if (c === '<') throw new XmlError(`raw '<' at ${where + i}`);
    else {
      out += c;
      i++;
    }
  }
  return out;
}

export function parseXml(xml: string): XmlElement {
  const bad = BAD_CHAR.exec(xml);
  if (bad)
    throw new XmlError(`character not allowed in XML 1.0 at ${bad.index}: U+${bad[0].codePointAt(0)!.toString(16)}`);
  let i = 0;
  if (xml.startsWith('<?xml')) {
    const end = xml.indexOf('?>');
    if (end < 0) throw new XmlError('unclosed XML declaration');
    i = end + 2;
  }
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  while (i < xml.length) {
    const lt = xml.indexOf('<', i);
    const text = xml.slice(i, lt < 0 ? xml.length : lt);
    if (text.includes(']]>')) throw new XmlError(`']]>' in text at ${i}`);
    const decoded = decode(text, i);
    if (stack.length) stack[stack.length - 1]!.text += decoded;
    else if (decoded.trim()) throw new XmlError(`text outside the root element at ${i}`);
    if (lt < 0) break;
    i = lt;
    if (xml.startsWith('<!--', i)) {
      const end = xml.indexOf('-->', i + 4);
      if (end < 0) throw new XmlError('unclosed comment');
      i = end + 3;
    } else if (xml.startsWith('<![CDATA[', i)) {
      const end = xml.indexOf(']]>', i);
      if (end < 0 || !stack.length) throw new XmlError('bad CDATA section');
      stack[stack.length - 1]!.text += xml.slice(i + 9, end);
      i = end + 3;
    } else if (xml.startsWith('<?', i)) {
      const end = xml.indexOf('?>', i);
      if (end < 0) throw new XmlError('unclosed processing instruction');
      i = end + 2;
    } else if (xml.startsWith('</', i)) {
      const m = NAME.exec(xml.slice(i + 2));
      const close = xml.indexOf('>', i);
      if (!m || close < 0 || xml.slice(i + 2 + m[0].length, close).trim()) throw new XmlError(`bad end tag at ${i}`);
      const open = stack.pop();
      if (!open || open.name !== m[0])
        throw new XmlError(`end tag </${m[0]}> does not match <${open?.name ?? '(none)'}> at ${i}`);
      i = close + 1;
    } else {
      const m = NAME.exec(xml.slice(i + 1));
      if (!m) throw new XmlError(`bad start tag at ${i}`);
      const el: XmlElement = { name: m[0], attrs: {}, children: [], text: '' };
      i += 1 + m[0].length;
      for (;;) {
        const ws = /^\s*/.exec(xml.slice(i))![0].length;
        i += ws;
        if (xml.startsWith('/>', i) || xml[i] === '>') break;
        if (!ws) throw new XmlError(`attributes need white space between them at ${i}`);
        const a = /^([A-Za-z_:][A-Za-z0-9_.:-]*)\s*=\s*(["'])/.exec(xml.slice(i));
        if (!a) throw new XmlError(`bad attribute at ${i}: ${xml.slice(i, i + 20)}`);
        const q = a[2]!;
        const start = i + a[0].length;
        const end = xml.indexOf(q, start);
        if (end < 0) throw new XmlError(`unclosed attribute value at ${i}`);
        if (a[1]! in el.attrs) throw new XmlError(`duplicate attribute ${a[1]} at ${i}`);
        el.attrs[a[1]!] = decode(xml.slice(start, end), start);
        i = end + 1;
      }
      const selfClosing = xml.startsWith('/>', i);
      i += selfClosing ? 2 : 1;
      if (stack.length) stack[stack.length - 1]!.children.push(el);
      else if (root) throw new XmlError(`second root element <${el.name}> at ${i}`);
      else root = el;
      if (!selfClosing) stack.push(el);
    }
  }
  if (stack.length) throw new XmlError(`unclosed <${stack[stack.length - 1]!.name}>`);
  if (!root) throw new XmlError('no root element');
  return root;
}

/** Every element of this name, depth first. */
export function findAll(el: XmlElement, name: string, out: XmlElement[] = []): XmlElement[] {
  if (el.name === name) out.push(el);
  for (const c of el.children) findAll(c, name, out);
  return out;
}
