import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type SerializerCompiler = ReturnType<SerializerFactory>;
type Serializer = ReturnType<SerializerCompiler>;

const defaultFactory = SerializerSelector();
const compiled = new WeakMap<object, Map<string, Serializer>>();

/**
 * Fastify's own response serializers (fast-json-stringify), compiled once per schema per process
 * (on first use) instead of once per route per app built. Compiling every response schema of the API is most of
 * the cost of building the app (about a second), and a process that builds several apps — the test
 * suite builds one per test file, several files to a process (test/run.ts) — compiled the same
 * schemas again each time. Our schemas are module constants, so the schema object itself is the key,
 * with the ids of the shared schemas it may refer to (`app.addSchema`: the error envelope) and the
 * serializer options: the same inputs always give the same serializer, a pure function of its value.
 */
export const cachedSerializerFactory: SerializerFactory = (externalSchemas, options) => {
  const compile = defaultFactory(externalSchemas, options);
  const context = JSON.stringify([Object.keys((externalSchemas as Record<string, unknown> | undefined) ?? {}).sort(), options ?? {}]);
  return (route) => {
    const schema = route.schema;
    if (typeof schema !== 'object' || schema === null) {
      return compile(route);
    }
    let bySettings = compiled.get(schema);
    if (!bySettings) {
      bySettings = new Map();
      compiled.set(schema, bySettings);
    }
    const cache = bySettings;
    const cached = cache.get(context);
    if (cached) {
      return cached;
    }
    // Compiled on the first response that uses it, not when the app is built (most of a start's
    // schema work, for routes most processes never answer), then shared like the others.
    let serializer: Serializer | undefined;
    const lazy: Serializer = (data) => {
      serializer ??= compile(route);
      return serializer(data);
    };
    cache.set(context, lazy);
    return lazy;
  };
};
