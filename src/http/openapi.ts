/** The parts of an OpenAPI document this module rewrites (the rest passes through untouched). */
interface OperationLike {
  requestBody?: { required?: boolean; content?: Record<string, { schema?: { nullable?: boolean } }> };
}

/**
 * @fastify/swagger marks every request body required. A bodyless operation (expire, release,
 * cancel, revoke, …) declares its body as "`{}` or nothing" (a union with null, which the document
 * shows as `nullable`), and the server accepts no body, `{}`, or an empty body with any content type:
 * such a body is optional, and the document says so.
 */
export function markOptionalRequestBodies<T>(document: T): T {
  const paths = (document as { paths?: Record<string, Record<string, OperationLike>> }).paths ?? {};
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      const body = operation.requestBody;
      if (body?.content?.['application/json']?.schema?.nullable === true) {
        body.required = false;
      }
    }
  }
  return document;
}
