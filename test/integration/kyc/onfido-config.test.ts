import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config/index.ts';

const base = { NODE_ENV: 'test' };
const live = { ONFIDO_API_TOKEN: 'api_live.abc', ONFIDO_WEBHOOK_TOKEN: 'whk', ONFIDO_REGION: 'US' };

function failure(env: Record<string, string>): ConfigError {
  try {
    loadConfig({ ...base, ...env }, []);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error;
  }
  assert.fail(`accepted ${JSON.stringify(env)}`);
}

describe('Onfido configuration (validated at boot, naming the variable)', () => {
  test('unset: no Onfido; set: live credentials, region and (tests only) API URL', () => {
    assert.deepEqual(loadConfig(base, []).onfido, { live: null, test: null, sdkUrl: 'https://sdk.onfido.com/v14' });
    const config = loadConfig({ ...base, ...live, ONFIDO_TEST_API_TOKEN: 'api_sandbox.xyz', ONFIDO_TEST_WEBHOOK_TOKEN: 'w2', ONFIDO_TEST_REGION: 'EU', ONFIDO_TEST_API_URL: 'http://127.0.0.1:9/v3.6/' }, []);
    assert.deepEqual(config.onfido.live, { apiToken: 'api_live.abc', webhookToken: 'whk', region: 'US', apiUrl: undefined });
    assert.deepEqual(config.onfido.test, { apiToken: 'api_sandbox.xyz', webhookToken: 'w2', region: 'EU', apiUrl: 'http://127.0.0.1:9/v3.6' });
  });

  test('ONFIDO_SDK_URL: Onfido\'s by default; https, or http on a loopback host (a test stand-in)', () => {
    assert.equal(loadConfig({ ...base, ONFIDO_SDK_URL: 'https://cdn.example.com/onfido/v14.js' }, []).onfido.sdkUrl, 'https://cdn.example.com/onfido/v14.js');
    assert.equal(loadConfig({ ...base, ONFIDO_SDK_URL: 'http://127.0.0.1:4010/web-sdk/onfido.js' }, []).onfido.sdkUrl, 'http://127.0.0.1:4010/web-sdk/onfido.js');
  });

  test('each mistake names its variable', () => {
    const cases: Array<[Record<string, string>, string, RegExp]> = [
      [{ ...live, ONFIDO_WEBHOOK_TOKEN: '' }, 'ONFIDO_WEBHOOK_TOKEN', /X-SHA2-Signature/],
      [{ ...live, ONFIDO_REGION: '' }, 'ONFIDO_REGION', /EU, US, CA/],
      [{ ...live, ONFIDO_REGION: 'eu-west' }, 'ONFIDO_REGION', /got "eu-west"/],
      [{ ...live, ONFIDO_API_TOKEN: 'api_sandbox.abc' }, 'ONFIDO_API_TOKEN', /sandbox token/],
      [{ ONFIDO_WEBHOOK_TOKEN: 'whk' }, 'ONFIDO_API_TOKEN', /is required/],
      [{ ...live, ONFIDO_API_URL: 'ftp://x' }, 'ONFIDO_API_URL', /http/],
      [{ ONFIDO_TEST_API_TOKEN: 'api_live.abc', ONFIDO_TEST_WEBHOOK_TOKEN: 'w', ONFIDO_TEST_REGION: 'EU' }, 'ONFIDO_TEST_API_TOKEN', /live token/],
      [{ ONFIDO_TEST_API_TOKEN: 'api_sandbox.abc', ONFIDO_TEST_REGION: 'EU' }, 'ONFIDO_TEST_WEBHOOK_TOKEN', /is required/],
      [{ ONFIDO_SDK_URL: 'sdk.onfido.com/v14' }, 'ONFIDO_SDK_URL', /absolute URL/],
      [{ ONFIDO_SDK_URL: 'http://sdk.example.com/onfido.js' }, 'ONFIDO_SDK_URL', /https/],
      [{ ONFIDO_SDK_URL: 'javascript:alert(1)' }, 'ONFIDO_SDK_URL', /https/],
      [{ ONFIDO_SDK_URL: 'https://user:secret@sdk.example.com/onfido.js' }, 'ONFIDO_SDK_URL', /credentials/],
    ];
    for (const [env, variable, message] of cases) {
      const error = failure(env);
      assert.equal(error.variable, variable, JSON.stringify(env));
      assert.match(error.message, message);
      assert.doesNotMatch(error.message, /abc|whk/, 'no secret in the message');
    }
  });
});
