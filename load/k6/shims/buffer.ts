// The few Buffer calls the shared redaction and recording code makes (base64 forms of a secret,
// UTF-8 byte length), for k6, which has no Buffer. esbuild injects this into every k6 bundle.
import { b64encode } from 'k6/encoding';

const VARIANTS: Record<string, 'std' | 'rawurl'> = { base64: 'std', base64url: 'rawurl' };

function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

class TextBuffer {
  constructor(private readonly text: string) {}

  toString(encoding?: string): string {
    const variant = encoding ? VARIANTS[encoding] : undefined;
    return variant ? b64encode(this.text, variant) : this.text;
  }
}

export const Buffer = {
  from: (text: string) => new TextBuffer(text),
  byteLength: (text: string) => utf8Length(text),
};
