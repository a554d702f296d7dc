import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { platformConfigFor, platformVariables, type PlatformRef } from '../config/conference.js';
import type { PlatformConfig } from '../config/env-config.js';
import { ConfigError } from '../errors/evsync-error.js';
import { conferenceHost } from '../model/conference.js';

/**
 * A lane is one conference key's queue (docs/distributed.md, "Several conferences"): its own
 * BullMQ queue, so that its global concurrency and job rate are that key's alone, and only
 * workers holding the key's credentials take its jobs.
 */

/**
 * The shared queue of releases before lanes: workers keep draining it (docs/distributed.md,
 * "Upgrading from the shared queue").
 */
export const SHARED_QUEUE = 'intents';

/**
 * A platform key's identity in Redis: a hash of its base URL and key id, never the signing
 * key. The lane's queue and the key's rate-limit bucket are both named by it.
 */
export function laneId(platform: Pick<PlatformConfig, 'baseUrl' | 'keyId'>): string {
  return createHash('sha256').update(`${platform.baseUrl}\u0000${platform.keyId}`).digest('hex').slice(0, 16);
}

/** The BullMQ queue name of a lane. */
export function laneQueueName(id: string): string {
  return `intents-lane-${id}`;
}

const variablesSchema = z.object({
  base_url_env: z.string(),
  key_id_env: z.string(),
  signing_key_env: z.string(),
});

/**
 * What a run notes of its lane in Redis, for workers to find the lanes they can serve and for
 * `evsync status`: the conference's base URL and key id (not secrets) and the names of the
 * variables jobs of this key read, never their values.
 */
export const laneNoteSchema = z.object({
  id: z.string(),
  baseUrl: z.string(),
  keyId: z.number(),
  variables: z.array(variablesSchema),
});
export type LaneNote = z.infer<typeof laneNoteSchema>;

const lanesKey = (prefix: string): string => `${prefix}:evsync-lanes`;

/** Notes the lane of a run's platform key, adding the run's variable names to those noted. */
export async function registerLane(
  redis: Redis,
  prefix: string,
  platform: Pick<PlatformConfig, 'baseUrl' | 'keyId'>,
  variables: Required<PlatformRef>,
): Promise<LaneNote> {
  const id = laneId(platform);
  const known = (await readLanes(redis, prefix)).get(id);
  const same = (v: Required<PlatformRef>): boolean =>
    v.base_url_env === variables.base_url_env &&
    v.key_id_env === variables.key_id_env &&
    v.signing_key_env === variables.signing_key_env;
  const note: LaneNote = {
    id,
    baseUrl: platform.baseUrl,
    keyId: platform.keyId,
    variables: [...(known?.variables.filter((v) => !same(v)) ?? []), variables],
  };
  await redis.hset(lanesKey(prefix), id, JSON.stringify(note));
  return note;
}

/** The lanes runs have noted, by id. */
export async function readLanes(redis: Redis, prefix: string): Promise<Map<string, LaneNote>> {
  const lanes = new Map<string, LaneNote>();
  for (const text of Object.values(await redis.hgetall(lanesKey(prefix)))) {
    const parsed = laneNoteSchema.safeParse(safeJson(text));
    if (parsed.success) lanes.set(parsed.data.id, parsed.data);
  }
  return lanes;
}

/** The host people see for a lane. */
export function laneHost(lane: Pick<LaneNote, 'baseUrl'>): string {
  return conferenceHost(lane.baseUrl);
}

/** A key this environment holds, and the variable names it holds it under. */
interface HeldKey {
  config: PlatformConfig;
  variables: Required<PlatformRef>;
}

/**
 * The keys this environment holds under the given variable names, by lane id: each set of names
 * read once, the first set naming a key kept.
 */
function heldKeys(candidates: Iterable<Required<PlatformRef>>, env: NodeJS.ProcessEnv): Map<string, HeldKey> {
  const tried = new Set<string>();
  const held = new Map<string, HeldKey>();
  for (const variables of candidates) {
    const names = `${variables.base_url_env}\u0000${variables.key_id_env}\u0000${variables.signing_key_env}`;
    if (tried.has(names)) continue;
    tried.add(names);
    let config: PlatformConfig;
    try {
      config = platformConfigFor(variables, env);
    } catch (error) {
      if (error instanceof ConfigError) continue;
      throw error;
    }
    const id = laneId(config);
    if (!held.has(id)) held.set(id, { config, variables });
  }
  return held;
}

/** The variable names runs noted for any lane, and `EVSYNC_*`: where a worker looks for keys. */
function notedVariables(lanes: Iterable<LaneNote>): Required<PlatformRef>[] {
  return [...[...lanes].flatMap((lane) => lane.variables), platformVariables()];
}

/**
 * This environment's settings for a lane's key: under the variable names some run noted for the
 * lane, else under those noted for any other lane or `EVSYNC_*`, as long as they name the
 * lane's base URL and key id. The same base URL and key id are the same key, whatever the
 * names a job gave them (docs/distributed.md, "Several conferences").
 */
export function laneConfigIn(
  lane: LaneNote,
  lanes: Iterable<LaneNote>,
  env: NodeJS.ProcessEnv,
): HeldKey | undefined {
  return heldKeys([...lane.variables, ...notedVariables(lanes)], env).get(lane.id);
}

/** The lanes this environment holds credentials for ({@link laneConfigIn}), every name read once. */
export function lanesServedBy(lanes: Iterable<LaneNote>, env: NodeJS.ProcessEnv): Set<string> {
  const all = [...lanes];
  const held = heldKeys(notedVariables(all), env);
  return new Set(all.filter((lane) => held.has(lane.id)).map((lane) => lane.id));
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
