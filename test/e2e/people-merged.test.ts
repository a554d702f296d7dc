import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, type CliWorkspace } from '../helpers/built-cli.js';

/**
 * Three sources sharing 9 people, as organisers keep them: an Eventbrite export (UTF-8
 * with a BOM), a comp list for press and sponsors (Windows-1252, `;`) and a speaker sheet.
 */
const FIXTURES = resolve(import.meta.dirname, '../fixtures/people');
const FILES = ['tickets.csv', 'comp-list.csv', 'speakers.csv', 'people.yaml'];

/** One session, and Ada's schedule under her ticket's client_id (the merged user's alias). */
const SESSIONS = [
  'client_id,name,description,start,finish,timezone',
  'ses-1,Opening,Welcome to the conference.,2027-03-01T09:00,2027-03-01T10:00,Europe/Berlin',
  '',
].join('\n');
const PICKS = ['user_client_id,event_client_id', 'eb-1001,ses-1', ''].join('\n');
const WITH_SCHEDULES = [
  '  - mapping: events',
  '    source: { csv: sessions.csv }',
  '  - mapping: schedules',
  '    source: { csv: picks.csv }',
  '',
].join('\n');

// Users: 10 valid tickets (1 refunded), 7 comp rows, 6 speakers; 9 people are in two or
// three of them, so 23 rows are 13 users.
describe('one person in several sources (built CLI)', () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;
  const cli = (...args: string[]) => workspace.run(sandbox, args);
  const user = (email: string) => sandbox.state.userByEmail(email);
  const editComp = (from: string, to: string): void => {
    const file = join(workspace.dir, 'comp-list.csv');
    const text = iconv.decode(readFileSync(file), 'win1252');
    expect(text).toContain(from);
    writeFileSync(file, iconv.encode(text.replace(from, to), 'win1252'));
  };

  beforeAll(async () => {
    workspace = cliWorkspace('evsync-people-');
    sandbox = await workspace.sandbox();
    for (const file of FILES) copyFileSync(join(FIXTURES, file), join(workspace.dir, file));
    const job = readFileSync(join(FIXTURES, 'people.yaml'), 'utf8').replace(
      'merge:',
      `${WITH_SCHEDULES}merge:`,
    );
    workspace.write({ 'people.yaml': job, 'sessions.csv': SESSIONS, 'picks.csv': PICKS });
  });
  afterAll(async () => workspace.close());

  it('validate and plan name the merged people and the conflicts precedence settled', async () => {
    const validate = await cli('validate', 'people.yaml');
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);
    expect(validate.stdout).toMatch(/^Merged people: 9 people described by 19 rows/m);
    expect(validate.stdout).toMatch(/^ {2}ada@example\.org → user spk-ada$/m);
    expect(validate.stdout).toMatch(/^ {6}tickets: eb-1001 \(tickets\.csv row 1/m);

    const plan = await cli('plan', 'people.yaml');
    expect(plan.code, plan.stderr).toBe(0);
    // kind, create, update, delete, unchanged, invalid, skipped: as the run below counts them.
    expect(plan.stdout).toMatch(/^user +13 +0 +0 +0 +0 +1$/m);
    expect(plan.stdout).toMatch(/^event +1 +0 +0 +0 +0 +0$/m);
    // Ada's schedule names her by an alias: the plan sends it as the run does, no loss.
    expect(plan.stdout).toMatch(/^schedule +1 +0 +0 +0 +0 +0$/m);
    expect(plan.stdout).toMatch(/^Skipped: 1 on purpose .*, 0 lost for missing data\.$/m);
    expect(plan.stdout).toMatch(/^Conflicts: \d+ fields/m);
    expect(plan.stdout).toMatch(
      /user\[membership\]: speakers "speaker" wins over tickets "member" \(precedence\)/,
    );
  }, 60_000);

  it('creates one user per person with the precedence’s values, and updates none', async () => {
    const first = await cli('run', 'people.yaml');
    expect(first.code, first.stdout + first.stderr).toBe(0);
    // kind, created, attached, updated, unchanged, deleted, skipped, failed
    expect(first.stdout).toMatch(/^user +13 +0 +0 +0 +0 +1 +0$/m);
    expect(first.stdout).toMatch(/^event +1 +0 +0 +0 +0 +0 +0$/m);
    expect(first.stdout).toMatch(/^schedule +1 +0 +0 +0 +0 +0 +0$/m);
    expect(first.stdout).toMatch(/^Skipped: 1 on purpose .*, 0 lost for missing data\.$/m);
    expect(first.stdout).toMatch(/^Merged people: 9 people described by 19 rows/m);

    const radia = user('radia@example.org');
    expect(radia?.clientIds).toEqual(['spk-radia', 'eb-1007', 'comp-04']);
    // Her employee is the speaker sheet's whole (Intel, no position), not Intel with the
    // position her ticket gives at DEC.
    expect(radia).toMatchObject({ membership: 'speaker', companyName: 'Intel', position: null });
    // Only the comp list has a salutation for Katherine; the ticket's company wins over its own.
    expect(user('katherine@example.org')).toMatchObject({
      salutation: 'Mme',
      companyName: 'NASA',
      membership: 'member',
    });
    // Read as Windows-1252, not mangled.
    expect(user('jose@example.org')).toMatchObject({ firstName: 'José', companyName: 'Café Crème' });
    // Ada's schedule names her by her ticket's client_id: the platform knows it as hers.
    const ada = user('ada@example.org')!;
    expect(ada.clientIds).toEqual(['spk-ada', 'eb-1001']);
    expect(sandbox.state.scheduleOf(ada.id)).toHaveLength(1);
    expect([...sandbox.state.users.values()].filter((u) => u.inConference)).toHaveLength(13);

    const again = await cli('run', 'people.yaml');
    expect(again.stdout).toMatch(/^user +0 +0 +0 +13 +0 +1 +0$/m);
  }, 60_000);

  it('a change in one source re-sends only that person, and a speaker stays a speaker', async () => {
    // Radia's salutation is the comp list's alone; her company there is not what wins.
    editComp(
      'comp-04;radia@example.org;Radia;Perlman;;press;',
      'comp-04;radia@example.org;Radia;Perlman;Dr;press;Radia Press',
    );
    const plan = await cli('plan', 'people.yaml', '--json');
    expect(JSON.parse(plan.stdout).counts).toEqual({
      user: { update: 1, unchanged: 12, skipped: 1 },
      event: { unchanged: 1 },
      schedule: { unchanged: 1 },
    });
    const run = await cli('run', 'people.yaml');
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^user +0 +0 +1 +12 +0 +1 +0$/m);
    expect(run.stdout).toMatch(/^event +0 +0 +0 +1 +0 +0 +0$/m);
    expect(run.stdout).toMatch(/^schedule +0 +0 +0 +1 +0 +0 +0$/m);
    expect(user('radia@example.org')).toMatchObject({
      membership: 'speaker',
      salutation: 'Dr',
      companyName: 'Intel',
    });

    // A field another step owns changes nothing on the platform: nothing is sent.
    editComp(
      'comp-01;katherine@example.org;Katherine;Johnson;Mme;press;Nasa Press Office',
      'comp-01;katherine@example.org;Katherine;Johnson;Mme;press;NASA Comms',
    );
    const quiet = await cli('run', 'people.yaml');
    expect(quiet.stdout).toMatch(/^user +0 +0 +0 +13 +0 +1 +0$/m);
  }, 60_000);
});
