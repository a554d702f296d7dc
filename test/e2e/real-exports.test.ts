import { copyFileSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import type { PlanSummary } from '../../src/sync/plan/plan-summary.js';
import { cliWorkspace, type CliWorkspace } from '../helpers/built-cli.js';
import { sandboxCounters } from './cli-in-process.js';
import { sentBesidesChecks } from '../helpers/sent-calls.js';

/** Real exports pinned with their sources and licences (test/fixtures/exports/README.md). */
const EXPORTS = resolve(import.meta.dirname, '../fixtures/exports');
const DEMOCON_JSON = join(EXPORTS, 'pretalx-democon-2022.json');
const DEMOCON_XML = join(EXPORTS, 'pretalx-democon-2022.xml');
const FOSDEM = join(EXPORTS, 'fosdem-2026-janson-excerpt.xml');

interface DemoconPerson {
  id: number;
  code: string;
  public_name: string;
}

/** Every speaker of the DemoCon JSON export, once. */
function democonPeople(): DemoconPerson[] {
  const whole = JSON.parse(readFileSync(DEMOCON_JSON, 'utf8')) as {
    schedule: { conference: { days: Array<{ rooms: Record<string, Array<{ persons: DemoconPerson[] }>> }> } };
  };
  const people = new Map<string, DemoconPerson>();
  for (const day of whole.schedule.conference.days)
    for (const sessions of Object.values(day.rooms))
      for (const session of sessions) for (const person of session.persons) people.set(person.code, person);
  return [...people.values()];
}

/**
 * The organiser's list as pretalx's speaker export writes it: keyed by code, which only the
 * JSON export carries; the XML's speakers match it by name.
 */
const speakerList = (people: DemoconPerson[]): string =>
  [
    'ID,Name,Email',
    ...people.map((p) => `${p.code},${p.public_name},${p.code.toLowerCase()}@democon.example.org`),
    '',
  ].join('\n');

const pretalxJob = (file: string, extra = ''): string =>
  [
    'name: democon',
    'mode: mirror',
    'rate: { per_second: 1000, concurrency: 8 }',
    'steps:',
    '  - mapping: pretalx',
    '    source:',
    '      pretalx:',
    `        path: ./${file}`,
    '        speakers: { csv: ./speakers.csv, id: ID, name: Name, email: Email }',
    ...(extra ? [`        ${extra}`] : []),
    '',
  ].join('\n');

/** What the platform holds: each user by e-mail with its client_ids and bio, each event's speakers. */
function platformState(sandbox: RunningSandbox): unknown {
  const users = [...sandbox.state.users.values()]
    .filter((user) => user.inConference)
    .map((user) => [user.email, user.clientIds, user.bio])
    .sort();
  const events = [...sandbox.state.events.values()]
    .map((event) => [event.clientIds, event.name, event.start, event.finish, event.speakers])
    .sort();
  return { users, events };
}

// Real public exports through the built CLI, as a user runs it (issue #30, items 1–3).
describe('real schedule exports through the built CLI', () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;
  const people = democonPeople();

  beforeAll(async () => {
    workspace = cliWorkspace('evsync-real-exports-');
    sandbox = await workspace.sandbox();
    copyFileSync(DEMOCON_JSON, join(workspace.dir, 'democon.json'));
    copyFileSync(DEMOCON_XML, join(workspace.dir, 'democon.xml'));
    copyFileSync(FOSDEM, join(workspace.dir, 'fosdem.xml'));
    workspace.write({ 'speakers.csv': speakerList(people) });
  });
  afterAll(async () => workspace.close());

  it('one pretalx schedule gives the same speaker keys in JSON and XML', async () => {
    const keysOf = async (file: string): Promise<string[]> => {
      const result = await workspace.run(sandbox, [
        'validate',
        '--source',
        file,
        '--mapping',
        'pretalx',
        '--speakers',
        'speakers.csv',
        '--json',
      ]);
      expect(result.code, result.stdout + result.stderr).toBe(0);
      const [step] = (JSON.parse(result.stdout) as { steps: Array<{ intents: Record<string, number> }> })
        .steps;
      expect(step?.intents).toMatchObject({ event: 35, user: people.length, speaker: 36 });
      const plan = await workspace.run(sandbox, ['plan', `${file}.yaml`, '--json']);
      expect(plan.code, plan.stderr).toBe(0);
      const summary = JSON.parse(plan.stdout) as PlanSummary;
      return summary.examples.filter((e) => e.kind === 'user').map((e) => e.key);
    };
    workspace.write({
      'democon.json.yaml': pretalxJob('democon.json'),
      'democon.xml.yaml': pretalxJob('democon.xml'),
    });
    const fromJson = await keysOf('democon.json');
    const fromXml = await keysOf('democon.xml');
    expect(fromJson.length).toBeGreaterThan(0);
    expect(fromJson).toEqual(fromXml);
    // The numeric pretalx id, which both formats write.
    for (const key of fromJson) expect(key).toMatch(/^px-\d+$/);
  });

  it('in mirror mode, switching the job from JSON to XML and back changes nothing on the platform', async () => {
    workspace.write({ 'job.yaml': pretalxJob('democon.json') });
    const first = await workspace.run(sandbox, ['run', 'job.yaml']);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toMatch(new RegExp(`^user +${people.length} +0 +0 +0 +0 +0 +0$`, 'm'));
    const before = platformState(sandbox) as { users: Array<[string, string[], string | null]> };
    expect(before.users.filter(([, , bio]) => (bio ?? '') !== '').length).toBeGreaterThan(0);

    // pretalx's XML carries no biographies: a bio it cannot say is kept as last synced,
    // not cleared, so nothing at all is to be sent (no create, update, delete or retire).
    workspace.write({ 'job.yaml': pretalxJob('democon.xml') });
    const plan = await workspace.run(sandbox, ['plan', 'job.yaml', '--json']);
    expect(plan.code, plan.stderr).toBe(0);
    const summary = JSON.parse(plan.stdout) as PlanSummary;
    expect(summary.counts).toEqual({
      user: { unchanged: people.length },
      event: { unchanged: 35 },
      speaker: { unchanged: 36 },
    });
    let calls = sentBesidesChecks(await sandboxCounters(sandbox));
    const second = await workspace.run(sandbox, ['run', 'job.yaml']);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(second.stdout).toMatch(/^total +0 +0 +0 +\d+ +0 +0 +0$/m);
    expect(sentBesidesChecks(await sandboxCounters(sandbox))).toBe(calls);
    const after = platformState(sandbox) as typeof before;
    expect(after).toEqual(before);
    for (const [, clientIds] of after.users) expect(clientIds).toHaveLength(1);

    // Back to JSON: the ledger still says what the platform holds, so nothing is sent.
    workspace.write({ 'job.yaml': pretalxJob('democon.json') });
    calls = sentBesidesChecks(await sandboxCounters(sandbox));
    const third = await workspace.run(sandbox, ['run', 'job.yaml']);
    expect(third.code, third.stdout + third.stderr).toBe(0);
    expect(third.stdout).toMatch(/^total +0 +0 +0 +\d+ +0 +0 +0$/m);
    expect(sentBesidesChecks(await sandboxCounters(sandbox))).toBe(calls);
    expect(platformState(sandbox)).toEqual(before);
  }, 180_000);

  it("FOSDEM's pretalx-made XML: the biographies of its top-level <persons> list land as bios", async () => {
    const fosdem = readFileSync(join(workspace.dir, 'fosdem.xml'), 'utf8');
    const ids = [...new Set([...fosdem.matchAll(/<person id="(\d+)">[^<]/g)].map((m) => m[1]!))];
    expect(ids).toHaveLength(12);
    workspace.write({
      'fosdem-speakers.csv': ['ID,Email', ...ids.map((id) => `${id},fosdem-${id}@example.org`), ''].join(
        '\n',
      ),
      'fosdem.yaml': [
        'name: fosdem',
        'rate: { per_second: 1000, concurrency: 8 }',
        'steps:',
        '  - mapping: frab',
        '    source:',
        '      frab:',
        '        path: ./fosdem.xml',
        '        speakers: { csv: ./fosdem-speakers.csv, id: ID, email: Email }',
        '',
      ].join('\n'),
    });
    const run = await workspace.run(sandbox, ['run', 'fosdem.yaml']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const users = ids.map((id) => sandbox.state.userByEmail(`fosdem-${id}@example.org`));
    expect(users.filter((user) => (user?.bio ?? '') !== '')).toHaveLength(11);
    expect(sandbox.state.userByEmail('fosdem-4875@example.org')?.bio).toContain('Michiel');
    expect(sandbox.state.userByEmail('fosdem-5356@example.org')?.bio).toContain('privacy activist');
    // FOSDEM Staff has no biography in the list.
    expect(sandbox.state.userByEmail('fosdem-2@example.org')?.bio ?? '').toBe('');
  }, 120_000);

  it('a timezone: that contradicts the export is named, both zones, in validate, plan and run', async () => {
    const both = /Europe\/Berlin.*America\/New_York|America\/New_York.*Europe\/Berlin/;
    workspace.write({ 'zone.yaml': pretalxJob('democon.xml', 'timezone: America/New_York') });
    const validate = await workspace.run(sandbox, ['validate', 'zone.yaml']);
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toMatch(
      /note: the export declares the time zone Europe\/Berlin and timezone: says America\/New_York: the export's zone is used/,
    );
    const plan = await workspace.run(sandbox, ['plan', 'zone.yaml']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stderr).toMatch(both);
    // The export's zone won: the same schedule as before, nothing to send.
    expect(plan.stdout).toMatch(/^event +0 +0 +0 +35 /m);
    const run = await workspace.run(sandbox, ['run', 'zone.yaml']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(both);

    workspace.write({ 'override.yaml': pretalxJob('democon.xml', 'override_timezone: America/New_York') });
    const overridden = await workspace.run(sandbox, ['validate', 'override.yaml']);
    expect(overridden.stdout).toMatch(
      /note: override_timezone: America\/New_York overrides the zone the export declares \(Europe\/Berlin\)/,
    );
    // The same instants written in New York time: every event is an update.
    const replan = await workspace.run(sandbox, ['plan', 'override.yaml']);
    expect(replan.stderr).toMatch(both);
    expect(replan.stdout).toMatch(/^event +0 +35 +0 +0 /m);
  }, 120_000);
});
