// Loaded with `node --import` by test/e2e/main-process.test.ts: reports on stderr every read of
// Node's web globals that are backed by its bundled undici (FormData, fetch, Request, Response,
// Headers, WebSocket, EventSource). The first such read loads and compiles undici, tens of
// milliseconds of a start's main thread; a start that never touches them should not pay for it.
import process from 'node:process';

const names = ['FormData', 'fetch', 'Request', 'Response', 'Headers', 'WebSocket', 'EventSource'];
for (const name of names) {
  const original = Object.getOwnPropertyDescriptor(globalThis, name);
  if (!original || !original.configurable) {
    continue;
  }
  let reported = false;
  Object.defineProperty(globalThis, name, {
    configurable: true,
    enumerable: original.enumerable,
    get() {
      if (!reported) {
        reported = true;
        const frame = new Error().stack?.split('\n')[2]?.trim() ?? '';
        process.stderr.write(`web-global-read: ${name} ${frame}\n`);
      }
      return original.get ? original.get.call(globalThis) : original.value;
    },
    set(value) {
      Object.defineProperty(globalThis, name, { configurable: true, enumerable: original.enumerable, writable: true, value });
    },
  });
}
