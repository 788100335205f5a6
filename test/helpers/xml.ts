/**
 * A strict reader for the XML litejobs writes (the diagram SVG): elements,
 * double-quoted attributes, text and the five entities plus numeric ones.
 * Anything else — a comment, CDATA, a processing instruction, a bare `&` or
 * `<`, an unbalanced or duplicated tag — is an error, so a test that parses
 * the output proves it well-formed.
 */

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** The element's own text (entities decoded), children's text excluded. */
  text: string;
}

const ENTITY = /&(?:(amp|lt|gt|quot|apos)|#(\d+)|#x([0-9a-fA-F]+));/g;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const OPEN = /<([A-Za-z_][\w.:-]*)((?:\s+[A-Za-z_:][\w.:-]*="[^"<]*")*)\s*(\/?)>/y;
const CLOSE = /<\/([A-Za-z_][\w.:-]*)\s*>/y;
const ATTR = /([A-Za-z_:][\w.:-]*)="([^"<]*)"/g;

function decode(raw: string, where: string): string {
  if (raw.replace(ENTITY, '').includes('&')) throw new Error(`bare & in ${where}: ${JSON.stringify(raw)}`);
  return raw.replace(ENTITY, (_m, named: string | undefined, dec: string | undefined, hex: string | undefined) =>
    named ? NAMED[named]! : String.fromCodePoint(dec ? Number(dec) : Number.parseInt(hex!, 16)),
  );
}

/** Parses one document with a single root element; throws on anything not well-formed. */
export function parseXml(source: string): XmlElement {
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let i = 0;
  while (i < source.length) {
    const lt = source.indexOf('<', i);
    const text = source.slice(i, lt === -1 ? source.length : lt);
    if (text.includes('>')) throw new Error(`bare > in text at ${i}`);
    const top = stack[stack.length - 1];
    if (top) top.text += decode(text, `text at ${i}`);
    else if (text.trim() !== '') throw new Error(`text outside the root element at ${i}`);
    if (lt === -1) break;
    CLOSE.lastIndex = lt;
    OPEN.lastIndex = lt;
    const close = CLOSE.exec(source);
    const open = close ? null : OPEN.exec(source);
    if (close) {
      const element = stack.pop();
      if (element?.name !== close[1]) throw new Error(`</${close[1]}> at ${lt} closes <${element?.name ?? 'nothing'}>`);
      i = CLOSE.lastIndex;
    } else if (open) {
      if (!top && root) throw new Error(`second root element <${open[1]}> at ${lt}`);
      const attrs: Record<string, string> = {};
      for (const [, name, value] of open[2]!.matchAll(ATTR)) {
        if (name! in attrs) throw new Error(`duplicate attribute ${name} on <${open[1]}> at ${lt}`);
        attrs[name!] = decode(value!, `attribute ${name}`);
      }
      const element: XmlElement = { name: open[1]!, attrs, children: [], text: '' };
      if (top) top.children.push(element);
      else root = element;
      if (open[3] !== '/') stack.push(element);
      i = OPEN.lastIndex;
    } else {
      throw new Error(`not a tag at ${lt}: ${JSON.stringify(source.slice(lt, lt + 30))}`);
    }
  }
  if (stack.length > 0) throw new Error(`<${stack[stack.length - 1]!.name}> is never closed`);
  if (!root) throw new Error('no root element');
  return root;
}

/** Every element of the tree, depth first, the root included. */
export function allElements(root: XmlElement): XmlElement[] {
  return [root, ...root.children.flatMap(allElements)];
}

/** The element's own text, then its children's (enough for text that ends in a tspan, as diagram labels do). */
export function textContent(element: XmlElement): string {
  return element.text + element.children.map(textContent).join('');
}
