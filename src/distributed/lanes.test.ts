import { describe, expect, it } from 'vitest';
import { laneConfigIn, laneId, laneQueueName, lanesServedBy, type LaneNote } from './lanes.js';

const SIGNING = 'a-signing-key-that-is-long-enough-0123456789';

const lane = (baseUrl: string, keyId: number, prefix = 'CONF_A'): LaneNote => ({
  id: laneId({ baseUrl, keyId }),
  baseUrl,
  keyId,
  variables: [
    {
      base_url_env: `${prefix}_URL`,
      key_id_env: `${prefix}_KEY_ID`,
      signing_key_env: `${prefix}_SIGNING_KEY`,
    },
  ],
});

describe('lanes', () => {
  it('names a lane by base URL and key id only: never the signing key, nothing BullMQ refuses', () => {
    const id = laneId({ baseUrl: 'https://conf-a.example', keyId: 7 });
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(laneId({ baseUrl: 'https://conf-a.example', keyId: 8 })).not.toBe(id);
    expect(laneId({ baseUrl: 'https://conf-b.example', keyId: 7 })).not.toBe(id);
    expect(laneQueueName(id)).toBe(`intents-lane-${id}`);
    expect(laneQueueName(id)).not.toContain(':');
  });

  it('serves a lane whose variables this environment sets to its base URL and key id', () => {
    const a = lane('https://conf-a.example', 7);
    const b = lane('https://conf-b.example', 3, 'CONF_B');
    const env = { CONF_A_URL: 'https://Conf-A.example/', CONF_A_KEY_ID: '7', CONF_A_SIGNING_KEY: SIGNING };
    expect([...lanesServedBy([a, b], env)]).toEqual([a.id]);
  });

  it('does not serve a lane when the variables are missing, or name another conference or key', () => {
    const a = lane('https://conf-a.example', 7);
    expect(lanesServedBy([a], { CONF_A_URL: 'https://conf-a.example', CONF_A_KEY_ID: '7' }).size).toBe(0);
    const other = { CONF_A_URL: 'https://conf-b.example', CONF_A_KEY_ID: '7', CONF_A_SIGNING_KEY: SIGNING };
    expect(lanesServedBy([a], other).size).toBe(0);
    const rotated = { CONF_A_URL: 'https://conf-a.example', CONF_A_KEY_ID: '8', CONF_A_SIGNING_KEY: SIGNING };
    expect(lanesServedBy([a], rotated).size).toBe(0);
  });

  it('serves a lane whose key this environment holds under other names, the same URL and key id', () => {
    const a = lane('https://conf-a.example', 7);
    const b = lane('https://conf-b.example', 3, 'CONF_B');
    // The worker's own EVSYNC_* hold A's key; another run's names hold B's.
    const env = {
      EVSYNC_BASE_URL: 'https://conf-a.example',
      EVSYNC_KEY_ID: '7',
      EVSYNC_SIGNING_KEY: SIGNING,
      CONF_B_URL: 'https://conf-b.example',
      CONF_B_KEY_ID: '3',
      CONF_B_SIGNING_KEY: SIGNING,
    };
    expect([...lanesServedBy([a, b], env)].sort()).toEqual([a.id, b.id].sort());
    expect(laneConfigIn(a, [a, b], env)).toMatchObject({
      config: { baseUrl: 'https://conf-a.example', keyId: 7 },
      variables: { signing_key_env: 'EVSYNC_SIGNING_KEY' },
    });
    // B's names in the environment never stand in for A's key: another URL.
    expect(laneConfigIn(a, [a, b], { ...env, EVSYNC_KEY_ID: '8' })).toBeUndefined();
  });
});
