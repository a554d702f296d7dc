import type { FlatParams } from '../../model/params.js';

/** An update's params with its cleared fields in the form the platform clears them in. */
export interface ClearingParams {
  params: FlatParams;
  /** Names sent to clear a field. */
  cleared: string[];
  /** Names the platform has no way to clear, each with why: left out of the request. */
  notCleared: Array<{ name: string; reason: string }>;
}

const BIO = 'user[item_attributes][article_attributes][content]';
const REMOVE_BIO = 'user[item_attributes][remove_article]';
const CUSTOM_DATA = 'user[account_attributes][profiles_attributes][0][custom_data]';
const ADDRESS = /^user\[account_attributes\]\[addresses_attributes\]\[(\d+)\]\[(\w+)\]$/;
const PREFERENCE = /^user\[account_attributes\]\[preferences_attributes\]\[\d+\]/;
const SPEAKER = /^event\[speakers_attributes\]\[\d+\]/;
const LOCATION_NAME = 'location[item_attributes][display_value]';
const LOCATION_ADDRESS = /^location_address\[/;
const REQUIRED = new Set([
  'user[first_name]',
  'user[last_name]',
  'event[item_attributes][display_value]',
  'event[item_attributes][article][content]',
  'event[start]',
  'event[finish]',
]);

/**
 * Turns the empty params of an update (fields synced before that the source has cleared,
 * docs/sync-engine.md "Cleared fields") into what clears them on the platform. §4.2 rule 3
 * and §4.5 rule 2: an update sets every field it includes, so most fields are cleared by
 * sending them blank (a blank track disconnects it, §4.5). Some need another form: the bio
 * by `remove_article=1`, custom data by an empty JSON object, the membership by its default
 * `member`. Some cannot be cleared: a required field, an address (city and country are
 * required whenever one is sent), a preference (key and value required), the last speaker of
 * an event (speakers are unchanged when none is sent), a location address while the location
 * stays (partial addresses are not allowed).
 */
export function clearingParams(params: FlatParams): ClearingParams {
  const out: FlatParams = {};
  const cleared: string[] = [];
  const notCleared: ClearingParams['notCleared'] = [];
  const has = (name: string): boolean => (params[name] ?? '') !== '';
  const keepsSpeakers = Object.keys(params).some((name) => SPEAKER.test(name) && has(name));
  const keepsAddress = Object.keys(params).some((name) => LOCATION_ADDRESS.test(name) && has(name));
  const clearsLocation = params[LOCATION_NAME] === '';

  for (const [name, value] of Object.entries(params)) {
    if (value !== '') {
      out[name] = value;
      continue;
    }
    const no = (reason: string): void => void notCleared.push({ name, reason });
    const address = ADDRESS.exec(name);
    // A password is never part of an update (§4.2 rule 5): nothing to clear.
    if (/\[password(_confirmation)?\]$/.test(name)) continue;
    if (REQUIRED.has(name) || /_auth_attributes\]/.test(name)) no('it is required');
    else if (name === BIO) {
      out[REMOVE_BIO] = '1';
      cleared.push(name);
    } else if (name === CUSTOM_DATA) {
      out[name] = '{}';
      cleared.push(name);
    } else if (name === 'user[membership]') {
      out[name] = 'member';
      cleared.push(name);
    } else if (address) {
      const prefix = `user[account_attributes][addresses_attributes][${address[1]}]`;
      // A field of an address that stays can be blanked; the address itself cannot go.
      if (address[2] !== 'city' && address[2] !== 'country_code' && has(`${prefix}[city]`))
        sendBlank(out, cleared, name);
      else
        no('an address cannot be removed through the API (city and country are required in each one sent)');
    } else if (PREFERENCE.test(name)) no('a preference needs a key and a value');
    else if (SPEAKER.test(name)) {
      // The speakers sent replace the event's; with none sent they stay as they are.
      if (!keepsSpeakers) no('speakers are unchanged when none is sent; remove them as speaker links');
    } else if (name === 'event[track_name]' && has('event[track_id]')) continue;
    else if (name === 'event[track_id]' && has('event[track_name]')) continue;
    else if (LOCATION_ADDRESS.test(name)) {
      if (clearsLocation) continue;
      if (keepsAddress) sendBlank(out, cleared, name);
      else
        no(
          'a partial location address is not allowed, and a whole one cannot be removed while the location stays',
        );
    } else sendBlank(out, cleared, name);
  }
  return { params: out, cleared, notCleared };
}

function sendBlank(out: FlatParams, cleared: string[], name: string): void {
  out[name] = '';
  cleared.push(name);
}

/**
 * The params without empty values, added to `into` (a new object by default): a create
 * sends no empty value. A loop over the names, no array of entries: every create passes here.
 */
export function withoutBlanks(params: FlatParams, into: FlatParams = {}): FlatParams {
  for (const name in params) {
    const value = params[name];
    if (value !== undefined && value !== '' && Object.hasOwn(params, name)) into[name] = value;
  }
  return into;
}
