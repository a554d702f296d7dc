import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';

/** The sandbox conference's users as `client_ids first last e-mail` lines, sorted: who holds which account. */
export function conferencePeople(sandbox: RunningSandbox): string[] {
  return sandbox.state
    .conferenceUsers()
    .map((user) => `${user.clientIds.join(' ')} ${user.firstName} ${user.lastName} ${user.email}`)
    .sort();
}

/** Tito's ticket export, its real header (test/fixtures/registration/tito.csv, fewer columns). */
export const TITO_HEADER =
  'Number,Ticket Created Date,Ticket,Ticket Full Name,Ticket First Name,Ticket Last Name,Ticket Email,Void Status,Ticket Reference,Order Reference,Order Name,Order Email';

/**
 * One synthetic ticket row of {@link TITO_HEADER}: its holder, or none (an unassigned ticket,
 * its name and e-mail empty), bought by `buyer` (the holder when not given).
 */
export function titoTicket(
  ref: string,
  holder: { first: string; last: string; email: string } | undefined,
  buyer = holder,
): string {
  const name = (who: typeof holder): string => (who === undefined ? '' : `${who.first} ${who.last}`);
  const ticket =
    holder === undefined ? ',,,' : `${name(holder)},${holder.first},${holder.last},${holder.email}`;
  return `1,2026-01-12 10:00:00 +0000,Early Bird,${ticket},,${ref},${ref.split('-')[0]},${name(buyer)},${buyer?.email ?? ''}`;
}

/**
 * A small conference as CSV files with the mappings that read them: users, sessions,
 * speaker links and personal schedules. Client ids carry a prefix so that several
 * fixtures can share one ledger.
 */
export interface ConferenceOptions {
  prefix: string;
  users: number;
  events: number;
  /** Speaker links whose user is not in users.csv (and never synced). */
  orphanSpeakers?: number;
}

/** Two sessions, s1 and s2, as the shipped `events` mapping reads them. */
export const TWO_SESSIONS = [
  'client_id,name,description,start,finish',
  's1,Opening,Welcome,2026-06-01T09:00:00Z,2026-06-01T10:00:00Z',
  's2,Closing,Goodbye,2026-06-01T17:00:00Z,2026-06-01T18:00:00Z',
  '',
].join('\n');

export const EVENT_MAPPING = `version: 1
intents:
  - kind: event
    params:
      client_id: client_id
      name: name
      description: { column: description, transforms: [text_to_xhtml] }
      start: start
      finish: finish
      track: track
      sponsor_client_id: sponsor
`;

export const SPEAKER_MAPPING = `version: 1
intents:
  - kind: speaker
    params:
      event_client_id: event_client_id
      user_client_id: user_client_id
      type: { column: type, transforms: [lower] }
`;

export const SCHEDULE_MAPPING = `version: 1
intents:
  - kind: schedule
    params:
      user_client_id: user_client_id
      event_client_id: event_client_id
`;

export function conferenceFiles(options: ConferenceOptions): Record<string, string> {
  const { prefix } = options;
  const users = ['client_id,email,first_name,last_name,company'];
  for (let i = 1; i <= options.users; i += 1) {
    users.push(`${prefix}u${i},${prefix}u${i}@example.org,First${i},Last${i},Acme`);
  }
  const events = ['client_id,name,description,start,finish,track,sponsor'];
  for (let i = 1; i <= options.events; i += 1) {
    const hour = String(9 + (i % 8)).padStart(2, '0');
    events.push(
      `${prefix}e${i},Session ${i},About ${i},2026-06-0${1 + (i % 3)}T${hour}:00:00Z,2026-06-0${1 + (i % 3)}T${hour}:45:00Z,Track ${1 + (i % 2)},`,
    );
  }
  const speakers = ['event_client_id,user_client_id,type'];
  for (let i = 1; i <= options.events; i += 1)
    speakers.push(`${prefix}e${i},${prefix}u${1 + (i % options.users)},Speaker`);
  for (let i = 1; i <= (options.orphanSpeakers ?? 0); i += 1)
    speakers.push(`${prefix}e${i},${prefix}ghost${i},speaker`);
  const schedules = ['user_client_id,event_client_id'];
  for (let i = 1; i <= options.users; i += 1) {
    for (let j = 0; j < 2; j += 1)
      schedules.push(`${prefix}u${i},${prefix}e${1 + ((i + j) % options.events)}`);
  }
  return {
    [`${prefix}-users.csv`]: `${users.join('\n')}\n`,
    [`${prefix}-events.csv`]: `${events.join('\n')}\n`,
    [`${prefix}-speakers.csv`]: `${speakers.join('\n')}\n`,
    [`${prefix}-schedules.csv`]: `${schedules.join('\n')}\n`,
    'events-map.yaml': EVENT_MAPPING,
    'speakers-map.yaml': SPEAKER_MAPPING,
    'schedules-map.yaml': SCHEDULE_MAPPING,
    [`${prefix}.yaml`]: conferenceJob(prefix),
  };
}

export function conferenceJob(prefix: string, extra = ''): string {
  return `name: ${prefix}
rate: { per_second: 2000, concurrency: 8 }
${extra}steps:
  - { mapping: users, source: { csv: ./${prefix}-users.csv } }
  - { mapping: ./events-map.yaml, source: { csv: ./${prefix}-events.csv } }
  - { mapping: ./speakers-map.yaml, source: { csv: ./${prefix}-speakers.csv } }
  - { mapping: ./schedules-map.yaml, source: { csv: ./${prefix}-schedules.csv } }
`;
}
