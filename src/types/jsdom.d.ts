/**
 * The part of jsdom Paysail uses: a window for DOMPurify and an XML round trip, to sanitise SVG
 * logos (src/modules/merchants/svg.ts). Declared here because @types/jsdom pulls the browser DOM
 * library into every file of the project (`/// <reference lib="dom" />`), which changes the types
 * of Node's own `fetch`, `Response` and `Blob`.
 */
declare module 'jsdom' {
  interface XmlElement {
    readonly namespaceURI: string | null;
    readonly localName: string;
  }
  interface XmlDocument {
    readonly documentElement: XmlElement | null;
    getElementsByTagName(name: string): { readonly length: number };
  }
  export interface JsdomWindow {
    DOMParser: new () => { parseFromString(source: string, type: 'image/svg+xml'): XmlDocument };
    XMLSerializer: new () => { serializeToString(node: XmlElement): string };
  }
  export class JSDOM {
    constructor(html?: string);
    readonly window: JsdomWindow;
  }
}
