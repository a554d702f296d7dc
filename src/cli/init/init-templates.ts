/**
 * What `evsync init --from …` writes for each kind of source: a commented job step, the
 * shipped mappings it copies to edit, and a sample file when the source is a CSV whose
 * columns are known (so that `validate` and `plan` work at once; replaced by the real export).
 */
export interface InitSource {
  /** Shipped mappings copied into `mappings/` (names without `.yaml`). */
  mappings: readonly string[];
  /** The step(s), as YAML lines under `steps:`, comments included. */
  steps: string;
  /** Sample files, by path relative to the folder. */
  samples?: Readonly<Record<string, string>>;
  /** Lines for `.env` beyond the platform's. */
  env?: readonly string[];
}

export const INIT_SOURCES = {
  csv: {
    mappings: ['users', 'events'],
    steps: `  # Attendees from a CSV file (any encoding and delimiter Excel writes). The sample file
  # shows the columns mappings/users.yaml reads: replace it with your export, or change the
  # column names in the mapping to fit it.
  - name: attendees
    mapping: ./mappings/users.yaml
    source: { csv: ./data/users.csv }
    # min_rows: 80%   # stop before sending when the export shrank to less than 80% of the last run's
  # Sessions from a CSV file (mappings/events.yaml names the columns). Uncomment when you have one.
  # - name: sessions
  #   mapping: ./mappings/events.yaml
  #   source: { csv: ./data/events.csv }
`,
    samples: {
      'data/users.csv':
        'client_id,email,first_name,last_name,company,position\n' +
        'example-1,ada.lovelace@example.org,Ada,Lovelace,Analytical Engines Ltd,Programmer\n',
    },
  },
  eventbrite: {
    mappings: ['eventbrite'],
    steps: `  # Eventbrite's attendee report (Reports → Attendees → Export, CSV). Cancelled and refunded tickets
  # (the mapping says which) are left out; edit the ticket types → memberships table in
  # mappings/eventbrite.yaml. The sample file shows the columns: replace it with your export.
  - name: tickets
    mapping: ./mappings/eventbrite.yaml
    source: { csv: ./data/eventbrite-attendees.csv }
`,
    samples: {
      'data/eventbrite-attendees.csv':
        'Order #,Attendee #,First Name,Last Name,Email,Ticket Type,Attendee Status,Company,Job Title\n' +
        '1000001,2000001,Grace,Hopper,grace.hopper@example.org,General Admission,Attending,Navy,Rear Admiral\n',
    },
  },
  pretix: {
    mappings: ['pretix-checkin'],
    steps: `  # pretix's check-in list (Check-in → the list → Export, CSV, with "Include QR-code secret"
  # ticked). mappings/pretix-checkin.yaml says which columns it reads and what it leaves out;
  # edit its products → memberships table. The sample file shows the columns: replace it with
  # your export. For the order export's positions sheet use mappings/pretix-orders.yaml
  # (evsync init --from pretix-orders).
  - name: pretix
    mapping: ./mappings/pretix-checkin.yaml
    source: { csv: ./data/pretix-checkin.csv }
    # custom_data: { columns: all_unmapped }   # keep your questions' answers on each profile
`,
    samples: {
      'data/pretix-checkin.csv':
        '"Order code","Attendee name","Attendee name: Given name","Attendee name: Family name","Product","Price","Checked in","Secret","E-mail","Company","Order date"\n' +
        '"EXMPL","Ada Lovelace","Ada","Lovelace","Conference Ticket","100.00","","exampleexampleexampleexample0001","ada.lovelace@example.org","Analytical Engines Ltd","2026-03-01"\n',
    },
  },
  'pretix-orders': {
    mappings: ['pretix-orders'],
    steps: `  # pretix's order data export, the order positions sheet (Data export → Order data → Order
  # positions, CSV): one user per position, canceled and expired orders left out.
  - name: pretix-orders
    mapping: ./mappings/pretix-orders.yaml
    source: { csv: ./data/pretix-positions.csv }
    # custom_data: { columns: all_unmapped }   # keep your questions' answers on each profile
`,
    samples: {
      'data/pretix-positions.csv':
        '"Order code","Position ID","Status","Email","Product","Attendee name","Attendee name: Given name","Attendee name: Family name","Attendee email","Company"\n' +
        '"EXMPL","1","paid","buyer@example.org","Conference Ticket","Ada Lovelace","Ada","Lovelace","ada.lovelace@example.org","Analytical Engines Ltd"\n',
    },
  },
  tito: {
    mappings: ['tito'],
    steps: `  # Tito's ticket export (Tickets → Export, CSV): void tickets left out, and a ticket not yet
  # assigned until Tito names its holder. Edit the tickets → memberships table in mappings/tito.yaml.
  - name: tito
    mapping: ./mappings/tito.yaml
    source: { csv: ./data/tito-tickets.csv }
    # custom_data: { columns: all_unmapped }   # keep your questions' answers on each profile
`,
    samples: {
      'data/tito-tickets.csv':
        'Ticket,Ticket Full Name,Ticket First Name,Ticket Last Name,Ticket Email,Ticket Company Name,Void Status,Ticket Reference,Order Reference,Order Name,Order Email\n' +
        'General,Ada Lovelace,Ada,Lovelace,ada.lovelace@example.org,Analytical Engines Ltd,,EXMP-1,EXMP,Ada Lovelace,ada.lovelace@example.org\n',
    },
  },
  luma: {
    mappings: ['luma'],
    steps: `  # Luma's guest list (Manage → Guests → Download as CSV): approved guests only. Edit the
  # tickets → memberships table in mappings/luma.yaml.
  - name: luma
    mapping: ./mappings/luma.yaml
    source: { csv: ./data/luma-guests.csv }
    # custom_data: { columns: all_unmapped }   # keep your questions' answers on each profile
`,
    samples: {
      'data/luma-guests.csv':
        'api_id,name,first_name,last_name,email,created_at,approval_status,checked_in_at,qr_code_url,ticket_name\n' +
        'gst-example1,Ada Lovelace,Ada,Lovelace,ada.lovelace@example.org,2026-03-01T10:00:00.000Z,approved,,https://luma.com/check-in/example,General\n',
    },
  },
  indico: {
    mappings: ['indico-registrants'],
    steps: `  # Indico's list of registrations (Registration → the form → List of registrations →
  # Export → CSV): rejected and withdrawn registrations left out; the address and country
  # kept in custom_data (the platform's address needs a city).
  - name: indico
    mapping: ./mappings/indico-registrants.yaml
    source: { csv: ./data/indico-registrations.csv }
    # custom_data: { columns: all_unmapped }   # keep your form's other fields on each profile
`,
    samples: {
      'data/indico-registrations.csv':
        'ID,Name,First Name,Last Name,Email Address,Affiliation,Position,Country,Registration date,Registration state\n' +
        '1,Ada Lovelace,Ada,Lovelace,ada.lovelace@example.org,Analytical Engines Ltd,Engineer,United Kingdom,2026-03-01 10:00:00,Completed\n',
    },
  },
  sessionize: {
    mappings: ['sessionize'],
    steps: `  # Sessionize's "All" export (API / Embed → JSON → All Data): sessions, speakers and who
  # speaks where. The samples show the shape: save your export over data/sessionize.json,
  # or read it from its URL instead (url: https://sessionize.com/api/v2/XXXXXXXX/view/All
  # in place of path:). Public exports have no e-mails: your speaker list gives them
  # (Sessionize's speaker export names the id "Speaker Id"; docs/sources.md).
  - name: sessionize
    mapping: ./mappings/sessionize.yaml
    source:
      sessionize:
        path: ./data/sessionize.json
        speakers:
          # Matched by the export's speaker id only where the names agree too: a wrong id in
          # the list then gives nobody that row's e-mail (docs/sources.md).
          csv: ./data/speaker-emails.csv
          id: Speaker Id
          email: Email
          name: [FirstName, LastName]
          first_name: FirstName
          last_name: LastName
`,
    samples: {
      // One session of one speaker in one room, as the export writes them, so that
      // `doctor` and `validate` read something before the real export is saved.
      'data/sessionize.json': `${JSON.stringify(
        {
          sessions: [
            {
              id: '100001',
              title: 'Notes on the Analytical Engine',
              description: 'A sample session: replace this file with your export.',
              startsAt: '2026-06-01T09:00:00Z',
              endsAt: '2026-06-01T10:00:00Z',
              isServiceSession: false,
              isPlenumSession: false,
              speakers: ['00000000-0000-0000-0000-000000000001'],
              categoryItems: [],
              questionAnswers: [],
              roomId: 1,
            },
          ],
          speakers: [
            {
              id: '00000000-0000-0000-0000-000000000001',
              firstName: 'Ada',
              lastName: 'Lovelace',
              fullName: 'Ada Lovelace',
              bio: 'A sample speaker.',
              tagLine: 'Programmer',
              profilePicture: null,
              isTopSpeaker: false,
              links: [],
              sessions: [100001],
              categoryItems: [],
              questionAnswers: [],
            },
          ],
          questions: [],
          categories: [],
          rooms: [{ id: 1, name: 'Main Hall', sort: 0 }],
        },
        null,
        2,
      )}\n`,
      'data/speaker-emails.csv':
        'Speaker Id,FirstName,LastName,Email\n' +
        '00000000-0000-0000-0000-000000000001,Ada,Lovelace,ada.lovelace@example.org\n',
    },
  },
  pretalx: {
    mappings: ['pretalx'],
    steps: `  # pretalx's schedule export (…/schedule/export/schedule.json). Save it as
  # data/pretalx.json, or read it from its URL: source: { pretalx: { url: https://… } }.
  # Public exports have no e-mails: join your speaker list (speakers:, docs/sources.md).
  - name: pretalx
    mapping: ./mappings/pretalx.yaml
    source: { pretalx: ./data/pretalx.json }
`,
  },
  frab: {
    mappings: ['frab'],
    steps: `  # A frab schedule.xml (frab, pretalx and FOSDEM export it). Save it as data/schedule.xml,
  # or read it from its URL: source: { frab: { url: https://… } }.
  - name: frab
    mapping: ./mappings/frab.yaml
    source: { frab: ./data/schedule.xml }
`,
  },
  postgres: {
    mappings: ['users'],
    steps: `  # Attendees from a PostgreSQL query, run read-only. Name the columns as mappings/users.yaml
  # reads them (client_id, email, first_name, last_name…). The URL is in .env (SOURCE_DB_URL).
  - name: attendees_db
    mapping: ./mappings/users.yaml
    source:
      postgres:
        url_env: SOURCE_DB_URL
        query: >-
          select id as client_id, email, first_name, last_name, company
          from attendees where conference = :conference
        params: { conference: 1 }
`,
    env: [
      '# The database the postgres step reads (read-only), e.g. postgres://reader@db.example.com/tickets',
      'SOURCE_DB_URL=',
    ],
  },
  mysql: {
    mappings: ['users'],
    steps: `  # Attendees from a MySQL or MariaDB query, run read-only. Name the columns as
  # mappings/users.yaml reads them. The URL is in .env (MYSQL_SOURCE_URL).
  - name: attendees_mysql
    mapping: ./mappings/users.yaml
    source:
      mysql:
        url_env: MYSQL_SOURCE_URL
        query: >-
          select id as client_id, email, first_name, last_name, company
          from attendees where conference = :conference
        params: { conference: 1 }
`,
    env: [
      '# The database the mysql step reads (read-only), e.g. mysql://reader@db.example.com/tickets',
      'MYSQL_SOURCE_URL=',
    ],
  },
} as const satisfies Record<string, InitSource>;

export type InitSourceName = keyof typeof INIT_SOURCES;
export const INIT_SOURCE_NAMES = Object.keys(INIT_SOURCES) as InitSourceName[];

/** The job file: its name, mode and rate explained, then the steps of the chosen sources. */
export function jobTemplate(name: string, sources: readonly InitSourceName[]): string {
  return `# The sync job evsync init wrote: edit it, then \`evsync doctor job.yaml\` and \`evsync validate job.yaml\`.
# Every key is explained in the README ("Using it") and docs/sync-engine.md.
name: ${name}
# upsert creates and updates; mirror also deletes what this job synced and the sources no
# longer have (at most delete_threshold of them, 10% by default, unless --force).
mode: upsert
# At most 10 writes a second, 4 at a time: raise it once the platform's owner agrees.
rate: { per_second: 10, concurrency: 4 }
# Distributed mode: \`evsync schedule job.yaml\` has a worker run it at 02:00 every night.
# schedule: { cron: '0 2 * * *', tz: Europe/Berlin }
steps:
${sources.map((source) => INIT_SOURCES[source].steps).join('')}`;
}

/** `.env`: the platform's three settings to fill in, and what the sources need. */
export function envTemplate(sources: readonly InitSourceName[]): string {
  const extra = sources.flatMap((source) => ('env' in INIT_SOURCES[source] ? INIT_SOURCES[source].env : []));
  return [
    '# evsync reads this file from the folder it runs in. Keep it out of version control.',
    '# The conference: its base URL, and your application key (key_id and signing key).',
    '# To rehearse, `evsync sandbox --port 8080` prints these three lines for a local sandbox.',
    'EVSYNC_BASE_URL=',
    'EVSYNC_KEY_ID=',
    'EVSYNC_SIGNING_KEY=',
    ...(extra.length > 0 ? ['', ...extra] : []),
    '',
  ].join('\n');
}
