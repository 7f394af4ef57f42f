import { createHash } from 'node:crypto';
import { wrongParameter } from '../../http/errors.ts';
import { sanitizeSvg } from './svg.ts';

export type LogoType = 'png' | 'jpeg' | 'svg';

export const logoMaxBytes = 256 * 1024;

export const logoContentTypes: Record<LogoType, string> = { png: 'image/png', jpeg: 'image/jpeg', svg: 'image/svg+xml' };

export function isLogoType(value: string): value is LogoType {
  return value === 'png' || value === 'jpeg' || value === 'svg';
}

const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const jpegSignature = Buffer.from([0xff, 0xd8, 0xff]);
/** What may stand before an SVG's root element: a BOM, an XML declaration, comments, a doctype. */
const svgPrologue = /^\uFEFF?\s*(<\?xml[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*|<!DOCTYPE[^>[]*(\[[\s\S]*?\])?\s*>\s*)*<svg[\s>]/i;

/** The logo's type from its bytes (magic numbers), never from a file name: null for anything else. */
export function detectLogoType(bytes: Buffer): LogoType | null {
  if (bytes.subarray(0, pngSignature.length).equals(pngSignature)) {
    return 'png';
  }
  if (bytes.subarray(0, jpegSignature.length).equals(jpegSignature)) {
    return 'jpeg';
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, 4096));
  } catch {
    return null;
  }
  return svgPrologue.test(text) ? 'svg' : null;
}

export interface PreparedLogo {
  bytes: Buffer;
  type: LogoType;
  sha256: string;
}

/**
 * Checks an uploaded logo and returns what is stored: PNG and JPEG as sent, SVG sanitised (svg.ts).
 * The content address is the hash of the stored bytes, so one URL always answers the same image.
 */
export function prepareLogo(bytes: Buffer): PreparedLogo {
  if (bytes.length === 0) {
    throw wrongParameter('logo', 'is empty');
  }
  if (bytes.length > logoMaxBytes) {
    throw wrongParameter('logo', `must be at most ${logoMaxBytes / 1024} KiB (this one is ${Math.ceil(bytes.length / 1024)} KiB)`);
  }
  const type = detectLogoType(bytes);
  if (!type) {
    throw wrongParameter('logo', 'must be a PNG, JPEG or SVG image');
  }
  const stored = type === 'svg' ? sanitizeSvg(bytes.toString('utf8')) : bytes;
  if (!stored) {
    throw wrongParameter('logo', 'is not a usable SVG image');
  }
  return { bytes: stored, type, sha256: createHash('sha256').update(stored).digest('hex') };
}

/** `/brand/logos/<sha256>.<type>`: content-addressed, served from our origin with immutable caching. */
export function logoPath(sha256: string, type: LogoType): string {
  return `/brand/logos/${sha256}.${type}`;
}
