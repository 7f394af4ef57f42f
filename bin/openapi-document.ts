/**
 * The OpenAPI document the app serves at `/openapi.json`, fetched from the real app on a throw-away
 * database (PGlite unless DATABASE_URL is set), for tools that read a file: `npm run lint:openapi`.
 */
import { createTestContext } from '../test/helpers/context.ts';

export async function fetchServedDocument(): Promise<string> {
  const context = await createTestContext({ env: { LOG_LEVEL: 'warn' } });
  try {
    const response = await context.app.inject({ method: 'GET', url: '/openapi.json' });
    if (response.statusCode !== 200) {
      throw new Error(`GET /openapi.json answered ${response.statusCode}`);
    }
    return response.body;
  } finally {
    await context.close();
  }
}
