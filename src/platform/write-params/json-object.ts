import { quote } from './text-rules.js';

/** A JSON object as `custom_data` holds it: arbitrary JSON under string keys. */
export type JsonObject = Record<string, unknown>;

/**
 * `custom_data`'s text read as the JSON object the spec wants (§4.2, "a string holding a
 * valid JSON object"), or what is wrong with it, worded for a person. Shared by validation
 * and by a mapping that merges further keys into a column's object.
 */
export function parseJsonObject(text: string): { object: JsonObject } | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { problem: `${quote(text)} is not valid JSON; expected a JSON object like {"key": "value"}` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    const kind = Array.isArray(parsed) ? 'an array' : parsed === null ? 'null' : `a ${typeof parsed}`;
    return { problem: `${quote(text)} is ${kind}; expected a JSON object like {"key": "value"}` };
  }
  return { object: parsed as JsonObject };
}
