import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, runBuiltCli, type CliWorkspace } from '../helpers/built-cli.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/registration/', import.meta.url));

interface Landed {
  email: string;
  first: string;
  last: string;
  company: string | null;
  membership: string;
}

/** The attending holders of the pretix orders fixtures, the same in their CSV and JSON exports. */
const PRETIX_ORDER_HOLDERS: Landed[] = [
  {
    email: 'bjorn@example.no',
    first: 'Björn',
    last: 'Sæther',
    company: 'Fjord AS',
    membership: 'member',
  },
  // No attendee e-mail on this position: the order's stands in.
  { email: 'buyer@example.de', first: 'Inès', last: 'Doğan', company: 'Fjord AS', membership: 'member' },
  {
    email: 'ada@example.org',
    first: 'Ada',
    last: 'Lovelace',
    company: 'Analytical Engines',
    membership: 'speaker',
  },
  // The order's e-mail again, for another holder: a plus-address of it (on_shared_email: suffix).
  {
    email: 'buyer+pretix-b7c8d-3@example.de',
    first: 'Ümit',
    last: 'Yılmaz',
    company: null,
    membership: 'member',
  },
];

/** Every attending person of each fixture, as the platform must hold them (issue #38). */
const EXPORTS: Array<{
  file: string;
  mapping: string;
  people: Landed[];
  clientIds?: string[];
  /** The job step's on_shared_email: holders of one order share its e-mail under other names. */
  onSharedEmail?: 'suffix';
  /** The job step's source kind. @defaultValue csv */
  kind?: 'pretix_json';
}> = [
  {
    file: 'pretix-checkin.csv',
    mapping: 'pretix-checkin',
    people: [
      // A lone CR inside the quoted company becomes one space.
      {
        email: 'zoe.nunez@example.org',
        first: 'Zoë',
        last: 'Ñúñez',
        company: 'Analytical Engines GmbH',
        membership: 'member',
      },
      {
        email: 'juergen@example.de',
        first: 'Jürgen Karl',
        last: 'Groß',
        company: 'Analytical Engines GmbH',
        membership: 'speaker',
      },
      { email: 'asa.oberg@example.se', first: 'Åsa', last: 'Øberg', company: null, membership: 'member' },
      { email: 'lukasz@example.pl', first: 'Łukasz', last: 'Żółć', company: 'Gazeta', membership: 'press' },
    ],
  },
  {
    file: 'pretix-checkin-first-name.csv',
    mapping: 'pretix-checkin',
    people: [
      {
        email: 'francois@example.fr',
        first: 'François',
        last: 'Lefèvre',
        company: null,
        membership: 'member',
      },
      {
        email: 'chloe@example.fr',
        first: 'Chloé',
        last: 'Lefèvre',
        company: 'Société Générale de Test',
        membership: 'member',
      },
    ],
  },
  {
    file: 'pretix-checkin-full-name.csv',
    mapping: 'pretix-checkin',
    people: [
      { email: 'minh@example.vn', first: 'Nguyễn Thị', last: 'Minh', company: null, membership: 'member' },
      {
        email: 'bleep@example.org',
        first: 'bleeptrack',
        last: 'bleeptrack',
        company: null,
        membership: 'member',
      },
    ],
  },
  {
    file: 'pretix-orders.csv',
    mapping: 'pretix-orders',
    people: PRETIX_ORDER_HOLDERS,
    onSharedEmail: 'suffix',
  },
  {
    // The same orders in pretix's "Order data (JSON)", with an add-on, a T-shirt sold alone and
    // a test-mode order besides: one row per position, skipped but for the attending holders.
    file: 'pretix-orders.json',
    mapping: 'pretix-orders',
    kind: 'pretix_json',
    people: PRETIX_ORDER_HOLDERS,
    clientIds: ['pretix-B7C8D-1', 'pretix-B7C8D-2', 'pretix-B7C8D-3', 'pretix-H1J2K-1'],
    onSharedEmail: 'suffix',
  },
  {
    // Two unassigned tickets of one buyer wait for their holders: the buyer never stands in.
    file: 'tito.csv',
    mapping: 'tito',
    clientIds: ['tito-QW3R-1', 'tito-QW3R-2'],
    people: [
      {
        email: 'siobhan@example.ie',
        first: 'Siobhán',
        last: "O'Connell",
        company: 'Éire Labs',
        membership: 'member',
      },
      {
        email: 'jose@example.es',
        first: 'José',
        last: 'Martínez',
        company: 'Compañía Ejemplo',
        membership: 'speaker',
      },
    ],
  },
  {
    file: 'luma.csv',
    mapping: 'luma',
    people: [
      { email: 'manana@example.mx', first: 'Mañana', last: 'Pérez', company: null, membership: 'member' },
      { email: 'antonin@example.cz', first: 'Dvořák', last: 'Antonín', company: null, membership: 'speaker' },
      { email: 'olafur@example.is', first: 'Ólafur', last: 'Arnalds', company: null, membership: 'member' },
    ],
  },
  {
    file: 'indico-registrants.csv',
    mapping: 'indico-registrants',
    people: [
      {
        email: 'ingrid.backstrom@example.se',
        first: 'Ingrid',
        last: 'Bäckström',
        company: 'Uppsala Universitet',
        membership: 'member',
      },
      {
        email: 'chidi@example.ng',
        first: 'Chidi',
        last: 'Okonkwo-Ferreira',
        company: 'Université de Genève',
        membership: 'member',
      },
      { email: 'tomas@example.ie', first: 'Tomás', last: 'Ó Briain', company: 'CERN', membership: 'member' },
    ],
    clientIds: ['indico-1', 'indico-2', 'indico-4'],
  },
  {
    file: 'eventbrite-uk-no-attendee-number.csv',
    mapping: 'eventbrite',
    people: [
      {
        email: 'sian@example.co.uk',
        first: 'Siân',
        last: 'Llewellyn',
        company: 'Cymru Cyf',
        membership: 'member',
      },
      {
        email: 'ngozi@example.co.uk',
        first: 'Ngozi',
        last: 'Okonjo-Iweala',
        company: 'Élan Ltd',
        membership: 'speaker',
      },
    ],
    // No attendee number: the order number and the ticket's place in its order.
    clientIds: ['eb-3001-1', 'eb-3003-1'],
  },
];

function landed(sandbox: RunningSandbox): Landed[] {
  return [...sandbox.state.users.values()]
    .filter((user) => user.inConference)
    .map((user) => ({
      email: user.email,
      first: user.firstName,
      last: user.lastName,
      company: user.companyName,
      membership: user.membership,
    }));
}

const byEmail = (a: Landed, b: Landed): number => a.email.localeCompare(b.email);

describe('registration exports as they really come, through the built CLI', () => {
  let workspace: CliWorkspace;
  beforeAll(() => {
    workspace = cliWorkspace('evsync-registration-');
  });
  afterAll(async () => workspace.close());

  it.each(EXPORTS)(
    '$file: validate, plan and run land every attending person',
    async ({ file, mapping, people, clientIds, onSharedEmail, kind }) => {
      const sandbox = await workspace.sandbox();
      const name = file.replace(/\.csv$/, '').replace(/\.json$/, '-json');
      copyFileSync(join(FIXTURES, file), join(workspace.dir, file));
      workspace.write({
        [`${name}.yaml`]: [
          `name: ${name}`,
          'mode: upsert',
          'steps:',
          `  - mapping: ${mapping}`,
          `    source: { ${kind ?? 'csv'}: ./${file} }`,
          '    custom_data: { columns: all_unmapped }',
          ...(onSharedEmail ? [`    on_shared_email: ${onSharedEmail}`] : []),
          '',
        ].join('\n'),
      });
      // Without --mapping, the header says which tool wrote it.
      const recognised = await workspace.run(sandbox, ['validate', '--source', file]);
      // The shipped mapping fails a shared e-mail of another name until the job says what to do.
      expect(recognised.code, recognised.stderr).toBe(onSharedEmail ? 1 : 0);
      if (onSharedEmail) expect(recognised.stdout).toMatch(/MAPPING_SHARED_EMAIL/);
      expect(recognised.stderr).toContain(`using --mapping ${mapping}`);
      if (kind) expect(recognised.stdout).toMatch(/skipped\s+5/);

      const validate = await workspace.run(sandbox, ['validate', `${name}.yaml`]);
      expect(validate.code, validate.stdout + validate.stderr).toBe(0);
      expect(validate.stdout).toMatch(/invalid\s+0/);
      const plan = await workspace.run(sandbox, ['plan', `${name}.yaml`]);
      expect(plan.code, plan.stdout + plan.stderr).toBe(0);
      const run = await workspace.run(sandbox, ['run', `${name}.yaml`]);
      expect(run.code, run.stdout + run.stderr).toBe(0);

      expect(landed(sandbox).sort(byEmail)).toEqual([...people].sort(byEmail));
      // Tito's ticket and order links, Luma's check-in QR code, and the buyer's IP address,
      // name, phone, company and payment are never copied to a holder's profile.
      const keys = [...sandbox.state.users.values()].flatMap((user) => Object.keys(user.customData));
      expect(
        keys.filter((key) =>
          /^(Unique (Ticket|Order) URL|qr_code_url|Order (IP|Name|Email|Phone Number|Company Name)|Payment Reference|Phone number)$/.test(
            key,
          ),
        ),
      ).toEqual([]);
      if (clientIds) {
        const ids = [...sandbox.state.users.values()].flatMap((user) => user.clientIds).sort();
        expect(ids).toEqual(clientIds);
      }
    },
    120_000,
  );

  it('init --from pretix, then doctor, validate and run a real check-in list, the mapping unedited', async () => {
    const sandbox = await workspace.sandbox();
    const folder = join(workspace.dir, 'fresh');
    const init = await runBuiltCli(['init', 'fresh', '--from', 'pretix'], { cwd: workspace.dir });
    expect(init.code, init.stderr).toBe(0);
    // The organiser's export replaces the sample; .env gets the sandbox's credentials.
    copyFileSync(join(FIXTURES, 'pretix-checkin.csv'), join(folder, 'data', 'pretix-checkin.csv'));
    const env = readFileSync(join(folder, '.env'), 'utf8').replace(/^EVSYNC_\w+=\n/gm, '');
    writeFileSync(
      join(folder, '.env'),
      `${env}EVSYNC_BASE_URL=${sandbox.url}\nEVSYNC_KEY_ID=${sandbox.keyId}\nEVSYNC_SIGNING_KEY=${sandbox.signingKey}\n`,
    );
    const inFolder = (...args: string[]) => runBuiltCli(args, { cwd: folder });
    const doctor = await inFolder('doctor', 'job.yaml');
    expect(doctor.code, doctor.stdout).toBe(0);
    const validate = await inFolder('validate', 'job.yaml');
    expect(validate.code, validate.stdout).toBe(0);
    const run = await inFolder('run', 'job.yaml');
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(landed(sandbox).sort(byEmail)).toEqual([...EXPORTS[0]!.people].sort(byEmail));
  }, 120_000);

  it('keeps the questions nobody mapped in custom_data, and says a left-out field', async () => {
    // The pretix run above kept "T-shirt size" on Zoë's profile and left Łukasz's address
    // (a country without a city) out with a warning.
    const sandbox = await workspace.sandbox();
    copyFileSync(join(FIXTURES, 'pretix-checkin.csv'), join(workspace.dir, 'tshirts.csv'));
    workspace.write({
      'tshirts.yaml':
        'name: tshirts\nsteps:\n  - { mapping: pretix-checkin, source: { csv: ./tshirts.csv }, custom_data: { columns: all_unmapped } }\n',
    });
    const run = await workspace.run(sandbox, ['run', 'tshirts.yaml']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/2 rows are sent without an optional field/);
    expect(sandbox.state.userByEmail('zoe.nunez@example.org')?.customData).toMatchObject({
      'T-shirt size': 'M',
      pretix_order: 'A1B2C',
    });
    expect(sandbox.state.userByEmail('lukasz@example.pl')?.addresses).toEqual([]);
    expect(sandbox.state.userByEmail('asa.oberg@example.se')?.addresses[0]).toMatchObject({
      city: 'Malmö',
      country_code: 'SE',
    });
  }, 120_000);

  it('a directory of 255 with handles and countries by name: all 255 land', async () => {
    const sandbox = await workspace.sandbox();
    const socials = (i: number): string =>
      [`@member${i}`, `member${i}`, `x.com/member${i}`, 'ask me at the desk', ''][i % 5]!;
    const countries = [
      'Viet Nam',
      "Côte d'Ivoire",
      'Iran, Islamic Republic of',
      'Kosovo',
      'Korea, Republic of',
      'Deutschland',
    ];
    const rows = Array.from(
      { length: 255 },
      (_, i) =>
        `d-${i},member${i}@example.org,Member,Number ${i},${socials(i)},"${countries[i % countries.length]}"`,
    );
    workspace.write({
      'directory.csv': ['id,email,first,last,social,country', ...rows, ''].join('\n'),
      'directory-mapping.yaml': [
        'intents:',
        '  - kind: user',
        '    params:',
        '      client_id: id',
        '      email: email',
        '      first_name: first',
        '      last_name: last',
        '      twitter: { column: social, transforms: [{ handle_url: twitter }] }',
        '    addresses:',
        '      - { country_code: { column: country, transforms: [country] } }',
        '',
      ].join('\n'),
      'directory.yaml':
        'name: directory\nsteps:\n  - { mapping: ./directory-mapping.yaml, source: { csv: ./directory.csv } }\n',
    });
    const validate = await workspace.run(sandbox, ['validate', 'directory.yaml']);
    expect(validate.code, validate.stdout).toBe(0);
    expect(validate.stdout).toMatch(/warnings\s+255/);
    expect(validate.stdout).toMatch(/"ask me at the desk" is neither a URL nor a twitter handle: left out/);
    const run = await workspace.run(sandbox, ['run', 'directory.yaml']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const users = [...sandbox.state.users.values()].filter((user) => user.inConference);
    expect(users).toHaveLength(255);
    expect(sandbox.state.userByEmail('member0@example.org')?.webLinks.twitter).toBe('https://x.com/member0');
    expect(sandbox.state.userByEmail('member2@example.org')?.webLinks.twitter).toBe('https://x.com/member2');
    expect(sandbox.state.userByEmail('member3@example.org')?.webLinks.twitter).toBeUndefined();
  }, 120_000);
});
