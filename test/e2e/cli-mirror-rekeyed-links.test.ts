import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, type CliWorkspace } from '../helpers/built-cli.js';
import { sandboxCounters } from './cli-in-process.js';
import { sentBesidesChecks } from '../helpers/sent-calls.js';

/** pretalx's own DemoCon export (the c3voc JSON). */
const DEMOCON = resolve(import.meta.dirname, '../fixtures/mappings/pretalx-democon.json');
/** Sessions taken from the real export: enough for a few links, few enough for a fast test. */
const SESSIONS = 4;

interface Person {
  id: number;
  code: string;
  public_name: string;
}
interface Session {
  id: number;
  guid: string;
  date: string;
  start: string;
  duration: string;
  room: string;
  title: string;
  subtitle: string;
  track: string;
  type: string;
  language: string;
  abstract: string;
  description: string;
  url: string;
  persons: Person[];
}
interface Day {
  index: number;
  date: string;
  day_start: string;
  day_end: string;
  rooms: Record<string, Session[]>;
}
interface Export {
  schedule: { conference: { title: string; time_zone_name: string; days: Day[] } & Record<string, unknown> };
}

/**
 * The first sessions with speakers of pretalx's DemoCon export, as pretalx 2025 and later write
 * them twice: the c3voc JSON (persons named by `code` only) and the frab XML (by numeric `id`).
 */
function democon(): { json: string; xml: string; speakers: string; links: Array<[string, string]> } {
  const whole = JSON.parse(readFileSync(DEMOCON, 'utf8')) as Export;
  const conference = whole.schedule.conference;
  let left = SESSIONS;
  const days = conference.days.map((day) => ({
    ...day,
    rooms: Object.fromEntries(
      Object.entries(day.rooms).map(([room, sessions]) => {
        const kept = sessions.filter((session) => session.persons.length > 0 && left-- > 0);
        return [room, kept] as const;
      }),
    ),
  }));
  const sessions = days.flatMap((day) => Object.values(day.rooms).flat());
  const persons = new Map(sessions.flatMap((session) => session.persons.map((p) => [p.code, p] as const)));
  const email = (person: Person): string => `${person.code.toLowerCase()}@democon.example.org`;
  // pretalx 2025 and later write no numeric person id in JSON, only the code: the speakers
  // are keyed by code there and by numeric id in the XML (docs/sources.md).
  const codeOnly = days.map((day) => ({
    ...day,
    rooms: Object.fromEntries(
      Object.entries(day.rooms).map(([room, list]) => [
        room,
        list.map((session) => ({
          ...session,
          persons: session.persons.map(({ code, public_name }) => ({ code, public_name })),
        })),
      ]),
    ),
  }));
  const json = JSON.stringify({
    ...whole,
    schedule: { ...whole.schedule, conference: { ...conference, days: codeOnly } },
  });
  const text = (value: string): string =>
    value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const element = (name: string, value: string): string => `<${name}>${text(value)}</${name}>`;
  const xml = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<schedule>',
    `<conference>${element('title', conference.title)}${element('time_zone_name', conference.time_zone_name)}</conference>`,
    ...days.map((day) =>
      [
        `<day index="${day.index}" date="${day.date}" start="${day.day_start}" end="${day.day_end}">`,
        ...Object.entries(day.rooms).map(([room, list]) =>
          [
            `<room name="${text(room)}">`,
            ...list.map((session) =>
              [
                `<event id="${session.id}" guid="${session.guid}">`,
                ...(['date', 'start', 'duration', 'room', 'title', 'subtitle', 'track', 'type'] as const).map(
                  (field) => element(field, session[field]),
                ),
                ...(['language', 'abstract', 'description', 'url'] as const).map((field) =>
                  element(field, session[field]),
                ),
                '<persons>',
                ...session.persons.map((p) => `<person id="${p.id}">${text(p.public_name)}</person>`),
                '</persons>',
                '</event>',
              ].join('\n'),
            ),
            '</room>',
          ].join('\n'),
        ),
        '</day>',
      ].join('\n'),
    ),
    '</schedule>',
    '',
  ].join('\n');
  // The organiser's list, keyed by pretalx code: the XML's numeric ids match by name.
  const speakers = [
    'code,name,email',
    ...[...persons.values()].map((p) => `${p.code},${p.public_name},${email(p)}`),
    '',
  ].join('\n');
  const links = sessions.flatMap((session) =>
    session.persons.map((p) => [`px-${session.guid}`, email(p)] as [string, string]),
  );
  return { json, xml, speakers, links };
}

const job = (schedule: string): string =>
  [
    'name: democon-speakers',
    'mode: mirror',
    // Every old user and link key is planned as a delete before the users phase finds the
    // new keys' users by e-mail; the run retires them.
    'delete_threshold: 100%',
    'rate: { per_second: 1000, concurrency: 8 }',
    'steps:',
    '  - mapping: pretalx',
    '    source:',
    '      pretalx:',
    `        path: ./${schedule}`,
    '        speakers: { csv: ./speakers.csv, id: code, name: name, email: email }',
    '',
  ].join('\n');

// A pretalx job switched from the JSON export to the XML export of the same schedule, as
// pretalx 2025 and later write them: its speakers are keyed by pretalx code in one and by
// numeric id in the other, so every user
// and speaker-link key changes while the platform records stay the same. Mirror mode must
// retire the old keys, never remove what the new keys name. The built CLI, as a user runs it.
describe('mirror mode and speakers re-keyed between two exports of one schedule', () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;
  const schedule = democon();
  const run = async () => {
    const result = await workspace.run(sandbox, ['run', 'job.yaml']);
    expect(result.stderr).not.toMatch(/"level":[56]\d/);
    return result;
  };
  /** The (event, user e-mail) speaker links on the sandbox. */
  const linksOnPlatform = (): Array<[string, string]> =>
    schedule.links.filter(([event, email]) => {
      const user = sandbox.state.userByEmail(email);
      return sandbox.state.eventByClientId(event)?.speakers.some((s) => s.userId === user?.id) === true;
    });

  beforeAll(async () => {
    workspace = cliWorkspace('evsync-rekeyed-links-');
    sandbox = await workspace.sandbox();
    workspace.write({
      'schedule.json': schedule.json,
      'schedule.xml': schedule.xml,
      'speakers.csv': schedule.speakers,
    });
  });
  afterAll(async () => workspace.close());

  it('keeps every speaker link on the platform, retires the old keys, and the next run sends nothing', async () => {
    const links = schedule.links.length;
    expect(links).toBeGreaterThanOrEqual(SESSIONS);

    workspace.write({ 'job.yaml': job('schedule.json') });
    const first = await run();
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toMatch(new RegExp(`^speaker +${links} +0 +0 +0 +0 +0 +0$`, 'm'));
    expect(linksOnPlatform()).toHaveLength(links);

    workspace.write({ 'job.yaml': job('schedule.xml') });
    const before = (await sandboxCounters(sandbox)).calls;
    const second = await run();
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(linksOnPlatform()).toEqual(schedule.links);
    // kind, created, attached, updated, unchanged, deleted, retired, skipped, failed
    expect(second.stdout).toMatch(new RegExp(`^speaker +${links} +0 +0 +0 +0 +${links} +0 +0$`, 'm'));
    expect(second.stdout).toMatch(/^user +\d+ +\d+ +\d+ +0 +0 +[1-9]\d* +0 +0$/m);
    const removes = Object.entries((await sandboxCounters(sandbox)).calls).filter(
      ([endpoint, count]) => /DELETE|remove/i.test(endpoint) && count > (before[endpoint] ?? 0),
    );
    expect(removes).toEqual([]);

    const total = sentBesidesChecks(await sandboxCounters(sandbox));
    const third = await run();
    expect(third.code, third.stdout + third.stderr).toBe(0);
    expect(third.stdout).toMatch(new RegExp(`^speaker +0 +0 +0 +${links} +0 +0 +0$`, 'm'));
    expect(third.stdout).toMatch(/^total +0 +0 +0 +\d+ +0 +0 +0$/m);
    expect(sentBesidesChecks(await sandboxCounters(sandbox))).toBe(total);
    expect(linksOnPlatform()).toEqual(schedule.links);
  }, 180_000);
});
