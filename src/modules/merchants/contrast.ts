/**
 * WCAG 2.x contrast for the merchant's brand colour (decision 0035). The formula is short and fixed
 * by the standard (https://www.w3.org/TR/WCAG21/#dfn-contrast-ratio), so it lives here rather than
 * in a colour library. Test vectors: white on black is 21, white on #1d4ed8 is 6.70.
 */

/** The two button text colours a brand colour may get: white, or our ink (near-black). */
export const lightInk = '#ffffff';
export const darkInk = '#0f172a';
/** WCAG AA for normal text: button labels are 16px semi-bold, so the normal-text threshold applies. */
export const minimumTextContrast = 4.5;
/** WCAG 1.4.11 for a focus ring against the page's white: below it we ring with our ink instead. */
export const minimumFocusContrast = 3;

export const hexColorPattern = /^#[0-9a-f]{6}$/;

function channel(value: number): number {
  const srgb = value / 255;
  return srgb <= 0.04045 ? srgb / 12.92 : ((srgb + 0.055) / 1.055) ** 2.4;
}

/** Relative luminance of `#rrggbb`. */
export function relativeLuminance(hex: string): number {
  const red = channel(Number.parseInt(hex.slice(1, 3), 16));
  const green = channel(Number.parseInt(hex.slice(3, 5), 16));
  const blue = channel(Number.parseInt(hex.slice(5, 7), 16));
  return 0.2126 * red + 0.7152 * green + 0.0722 * blue;
}

export function contrastRatio(first: string, second: string): number {
  const [lighter, darker] = [relativeLuminance(first), relativeLuminance(second)].sort((a, b) => b - a) as [number, number];
  return (lighter + 0.05) / (darker + 0.05);
}

export interface ButtonColors {
  background: string;
  /** White or near-black, whichever reads better on the background. */
  text: string;
  /** The contrast of `text` on `background`. */
  contrast: number;
  /** The focus ring: the brand colour when it stands out on white (3:1), else our ink. */
  focus: string;
}

/**
 * The button text for a brand colour: white or near-black, whichever contrasts more. Null when
 * neither reaches 4.5:1 (mid-greys such as #787878), which the settings refuse.
 */
export function buttonColorsFor(background: string): ButtonColors | null {
  const onLight = contrastRatio(background, lightInk);
  const onDark = contrastRatio(background, darkInk);
  const [text, contrast] = onLight >= onDark ? [lightInk, onLight] : [darkInk, onDark];
  if (contrast < minimumTextContrast) {
    return null;
  }
  return { background, text, contrast, focus: onLight >= minimumFocusContrast ? background : darkInk };
}
