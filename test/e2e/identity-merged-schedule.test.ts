import { copyFileSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namesAgree } from '../../src/model/person.js';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, type CliWorkspace } from '../helpers/built-cli.js';

/**
 * A real merged schedule whose person ids collide (test/fixtures/exports/README.md, jev22):
 * eleven sub-conferences numbered their speakers from 1, so id 12 is five people. Two
 * nightly snapshots synced in turn, with the organiser's speaker list (synthetic e-mails, one
 * per pretalx code) joined by id and name: every speaker lands with their own e-mail, and
 * no platform user changes name but those the export itself renamed.
 */
const EXPORTS = resolve(import.meta.dirname, '../fixtures/exports');
const SNAPSHOTS = ['jev22-everything-2022-12-28-excerpt.json', 'jev22-everything-2022-12-29-excerpt.json'];

interface Person {
  id: number | string;
  code?: string;
  public_name: string;
}

/** Every person of a snapshot once per (id, name), with the e-mail the organiser has for them. */
function peopleOf(file: string): Array<{ id: string; name: string; email: string }> {
  const schedule = JSON.parse(readFileSync(join(EXPORTS, file), 'utf8')) as {
    schedule: { conference: { days: Array<{ rooms: Record<string, Array<{ persons: Person[] }>> }> } };
  };
  const seen = new Map<string, { id: string; name: string; email: string }>();
  for (const day of schedule.schedule.conference.days)
    for (const sessions of Object.values(day.rooms))
      for (const session of sessions)
        for (const person of session.persons) {
          const name = person.public_name.trim();
          const tag = person.code ?? name.toLowerCase().replace(/[^a-z0-9]+/g, '');
          seen.set(`${person.id}\u0000${name}`, {
            id: String(person.id),
            name,
            email: `${tag.toLowerCase()}@jev22.example.org`,
          });
        }
  return [...seen.values()];
}

const csvCell = (text: string): string => (/[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);

const JOB = [
  'name: jev22',
  'rate: { per_second: 1000, concurrency: 8 }',
  'steps:',
  '  - mapping: pretalx',
  '    source:',
  '      pretalx:',
  '        path: ./schedule.json',
  '        speakers: { csv: ./speakers.csv, id: ID, name: Name, email: Email }',
  '',
].join('\n');

describe('a real merged schedule with colliding person ids, synced night after night (built CLI)', () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;

  beforeAll(async () => {
    workspace = cliWorkspace('evsync-jev22-');
    sandbox = await workspace.sandbox();
    workspace.write({ 'job.yaml': JOB });
  });
  afterAll(async () => workspace.close());

  /** Each user of the conference by e-mail: its name. */
  const names = (): Map<string, string> =>
    new Map(
      [...sandbox.state.users.values()]
        .filter((user) => user.inConference)
        .map((user) => [user.email, `${user.firstName} ${user.lastName}`]),
    );

  const sync = async (snapshot: string): Promise<ReturnType<typeof peopleOf>> => {
    copyFileSync(join(EXPORTS, snapshot), join(workspace.dir, 'schedule.json'));
    const people = peopleOf(snapshot);
    workspace.write({
      'speakers.csv':
        ['ID,Name,Email', ...people.map((p) => [p.id, p.name, p.email].map(csvCell).join(','))].join('\n') +
        '\n',
    });
    const run = await workspace.run(sandbox, ['run', 'job.yaml']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    return people;
  };

  it('lands every speaker with their own e-mail, and renames nobody the export did not', async () => {
    const first = await sync(SNAPSHOTS[0]!);
    // The excerpt shares ids between people: the join must tell them apart by name.
    const ids = new Map<string, number>();
    for (const person of first) ids.set(person.id, (ids.get(person.id) ?? 0) + 1);
    expect([...ids.values()].filter((count) => count > 1).length).toBeGreaterThanOrEqual(20);

    const before = names();
    for (const person of first)
      expect(namesAgree(before.get(person.email) ?? '', person.name), person.email).toBe(true);
    expect(before.size).toBe(new Set(first.map((p) => p.email)).size);

    const second = await sync(SNAPSHOTS[1]!);
    const after = names();
    const renamedBySource = new Set(
      second
        .filter((p) => {
          const earlier = first.find((q) => q.email === p.email);
          return earlier !== undefined && earlier.name !== p.name;
        })
        .map((p) => p.email),
    );
    expect(renamedBySource.size).toBeGreaterThan(0);
    const changed = [...before]
      .filter(([email, name]) => after.has(email) && after.get(email) !== name)
      .map(([email]) => email);
    expect(changed.sort()).toEqual([...renamedBySource].sort());
    for (const person of second)
      expect(namesAgree(after.get(person.email) ?? '', person.name), person.email).toBe(true);
  }, 120_000);
});

describe('a speaker list whose row gives an export id to another name (built CLI)', () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;

  beforeAll(async () => {
    workspace = cliWorkspace('evsync-jev22-conflict-');
    sandbox = await workspace.sandbox();
    copyFileSync(join(EXPORTS, SNAPSHOTS[0]!), join(workspace.dir, 'schedule.json'));
    // A sub-conference's own list numbers its speakers from 1 too: its row for one id is
    // somebody the merged export gives another id, and the export's person of that id has no row.
    const people = peopleOf(SNAPSHOTS[0]!);
    const counts = new Map<string, number>();
    for (const person of people) counts.set(person.id, (counts.get(person.id) ?? 0) + 1);
    const victim = people.find((person) => counts.get(person.id) === 1)!;
    const rows = people.map((p) =>
      p === victim ? [p.id, 'Ada Lovelace', 'ada@elsewhere.example.org'] : [p.id, p.name, p.email],
    );
    workspace.write({
      'job.yaml': JOB,
      'speakers.csv': ['ID,Name,Email', ...rows.map((row) => row.map(csvCell).join(','))].join('\n') + '\n',
      'victim.json': JSON.stringify(victim),
    });
  });
  afterAll(async () => workspace.close());

  it('gives nobody that row’s e-mail, names both in validate, plan and run, and exits 1', async () => {
    const victim = JSON.parse(readFileSync(join(workspace.dir, 'victim.json'), 'utf8')) as {
      id: string;
      name: string;
    };
    const said = new RegExp(
      // Quotes as a person reads them, or escaped in a JSON log line.
      `speaker ${victim.id} \\\\?"${victim.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\\\?".*gives id ${victim.id} to \\\\?"Ada Lovelace`,
    );
    for (const command of ['validate', 'plan', 'run']) {
      const result = await workspace.run(sandbox, [command, 'job.yaml']);
      // A plan says what a run would do; the run and validate end with 1.
      expect(result.code, `${command}: ${result.stdout}${result.stderr}`).toBe(command === 'plan' ? 0 : 1);
      expect(result.stdout + result.stderr, command).toMatch(said);
      if (command === 'validate') expect(result.stdout, command).toContain('SCHEDULE_SPEAKER_LIST_CONFLICT');
    }
    const users = [...sandbox.state.users.values()].filter((user) => user.inConference);
    expect(users.length).toBeGreaterThan(50);
    expect(users.find((user) => user.email === 'ada@elsewhere.example.org')).toBeUndefined();
    expect(
      users.find((user) => namesAgree(`${user.firstName} ${user.lastName}`, victim.name)),
    ).toBeUndefined();
  }, 120_000);
});
