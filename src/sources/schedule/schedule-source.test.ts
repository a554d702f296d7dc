import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createScheduleSource, type ScheduleSourceOptions } from './schedule-source.js';
import { SCHEDULE_RECORD_COLUMNS } from './schedule-records.js';
import { createLogger } from '../../log/logger.js';

const SHARED = '/work/shared/fixtures';
const OURS = join(import.meta.dirname, '../../../test/fixtures/sources');

type Values = Record<string, string>;
async function records(options: Omit<ScheduleSourceOptions, 'display'>): Promise<Values[]> {
  const out: Values[] = [];
  for await (const item of createScheduleSource({ display: 'test', ...options }).rows()) {
    if (!item.ok) throw new Error(item.message);
    out.push(item.values as Values);
  }
  return out;
}
const ofType = (all: Values[], type: string): Values[] => all.filter((record) => record.record_type === type);

function expectColumns(all: Values[]): void {
  for (const record of all) {
    const type = record.record_type as keyof typeof SCHEDULE_RECORD_COLUMNS;
    expect(Object.keys(record).sort()).toEqual([...SCHEDULE_RECORD_COLUMNS[type]].sort());
    for (const value of Object.values(record)) expect(typeof value).toBe('string');
  }
}

describe('sessionize', () => {
  it('reads the demo All.json into sessions, speakers and links', async () => {
    const all = await records({ format: 'sessionize', path: join(SHARED, 'sessionize/All.json') });
    expectColumns(all);
    expect(ofType(all, 'session')).toHaveLength(11);
    expect(ofType(all, 'speaker')).toHaveLength(10);
    expect(ofType(all, 'session')[0]).toMatchObject({
      id: '14022',
      title: "Aiden's Session",
      start: '2017-05-27T09:00:00+00:00',
      end: '2017-05-27T10:00:00+00:00',
      duration_minutes: '60',
      room: 'Green Room',
      track: 'Technical',
      format: 'Session',
      level: 'Intermediate',
      language: 'Italian',
      is_service_session: 'false',
      speaker_ids: '00000000-0000-0000-0000-000000000004',
      answers: '{"Demo":"67"}',
    });
    expect(ofType(all, 'session').find((s) => s.title === 'Lunch')).toMatchObject({
      is_service_session: 'true',
      speaker_ids: '',
    });
    expect(ofType(all, 'speaker')[0]).toMatchObject({
      id: '00000000-0000-0000-0000-000000000004',
      first_name: 'Aiden',
      last_name: 'Test',
      tagline: 'Professional public speaker',
      twitter: 'https://twitter.com/sessionizecom',
      linkedin: 'http://linkedin.com/in/domagojpa',
      session_ids: '14022',
    });
    expect(ofType(all, 'speaker_link')).toContainEqual({
      record_type: 'speaker_link',
      session_id: '14022',
      speaker_id: '00000000-0000-0000-0000-000000000004',
      role: 'speaker',
      position: '1',
    });
  });

  it('handles a BOM, local times across DST, CRLF and mixed id types', async () => {
    const all = await records({
      format: 'sessionize',
      path: join(OURS, 'sessionize-messy.json'),
      timezone: 'Europe/Berlin',
    });
    expectColumns(all);
    const [opening, lunch] = ofType(all, 'session');
    expect(opening).toMatchObject({
      id: '901',
      description: 'Line one\nLine two',
      start: '2024-03-31T01:30:00+01:00',
      end: '2024-03-31T03:15:00+02:00',
      duration_minutes: '45',
      timezone: 'Europe/Berlin',
      room: 'Hall A',
      track: 'Web',
      format: 'Workshop',
      tags: 'Security',
      speaker_ids: 'aaaa-1,bbbb-2',
    });
    expect(lunch).toMatchObject({ id: 'f00d-lunch', is_service_session: 'true', room: '', description: '' });
    expect(ofType(all, 'speaker')[0]).toMatchObject({
      bio: 'Bio\nwith CRLF',
      blog: 'https://zoe.example',
      twitter: 'https://twitter.com/zoe',
      session_ids: '901',
      company: 'Acme GmbH',
      answers: '{"Company name":"Acme GmbH"}',
    });
    expect(JSON.parse(ofType(all, 'speaker')[0]!.links!)).toHaveLength(2);
    // Both sides list the same pairs (one with integer ids): each link once.
    expect(ofType(all, 'speaker_link').map((l) => `${l.session_id}/${l.speaker_id}/${l.position}`)).toEqual([
      '901/aaaa-1/1',
      '901/bbbb-2/2',
    ]);
  });

  it('asks for timezone: when times have no offset and none is set', async () => {
    await expect(
      records({ format: 'sessionize', path: join(OURS, 'sessionize-messy.json') }),
    ).rejects.toMatchObject({
      code: 'SCHEDULE_TIMEZONE_REQUIRED',
      message: expect.stringContaining('set timezone:'),
    });
  });

  it('a session whose time cannot be read is a row problem; the rest of the file is read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evsync-sessionize-'));
    const session = (id: number, startsAt: string) => ({
      id,
      title: `Talk ${id}`,
      startsAt,
      endsAt: '2026-06-01T11:00:00Z',
      speakers: ['s-1'],
      categoryItems: [],
      questionAnswers: [],
    });
    const all = {
      sessions: [
        session(1, '2026-06-01T10:00:00Z'),
        session(2, '01/06/2026 10:00'),
        session(3, '2026-06-01T10:30:00Z'),
      ],
      speakers: [{ id: 's-1', firstName: 'Ada', lastName: 'L', sessions: [1, 2, 3] }],
      questions: [],
      categories: [],
      rooms: [],
    };
    writeFileSync(join(dir, 'All.json'), JSON.stringify(all));
    const items = [];
    for await (const item of createScheduleSource({
      display: 'All.json',
      format: 'sessionize',
      path: join(dir, 'All.json'),
    }).rows())
      items.push(item);
    const problems = items.filter((item) => !item.ok);
    expect(problems).toEqual([
      {
        ok: false,
        origin: { source: 'All.json', row: 2 },
        code: 'SCHEDULE_BAD_TIME',
        message:
          'session 2 startsAt "01/06/2026 10:00" (session "Talk 2") is not an ISO 8601 date and time (like 2026-06-01T09:30:00, with or without an offset): the session and its 1 speaker link(s) are left out; fix the time in the export',
      },
    ]);
    const values = items.flatMap((item) => (item.ok ? [item.values as Values] : []));
    expect(ofType(values, 'session').map((s) => s.id)).toEqual(['1', '3']);
    expect(ofType(values, 'speaker_link').map((l) => l.session_id)).toEqual(['1', '3']);
  });

  it('says what is wrong with a file that is not an export', async () => {
    await expect(records({ format: 'sessionize', path: join(OURS, 'semicolon.csv') })).rejects.toMatchObject({
      code: 'SCHEDULE_INVALID_JSON',
    });
    await expect(
      records({ format: 'sessionize', path: join(SHARED, 'pretalx/pretalx-democon.json') }),
    ).rejects.toMatchObject({
      code: 'SCHEDULE_UNEXPECTED_SHAPE',
      message: expect.stringContaining('sessions'),
    });
  });
});

describe('pretalx (c3voc JSON)', () => {
  it('reads the democon export; written offsets win over the declared UTC, and it is noted', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const all = await records({
      format: 'pretalx',
      path: join(SHARED, 'pretalx/pretalx-democon.json'),
      logger,
    });
    expectColumns(all);
    const sessions = ofType(all, 'session');
    expect(sessions).toHaveLength(36);
    expect(sessions[0]).toMatchObject({
      id: '25',
      guid: '8079583e-8321-506c-95af-fd2903a5f075',
      start: '2020-12-14T09:00:00+01:00',
      end: '2020-12-14T09:30:00+01:00',
      duration_minutes: '30',
      timezone: '',
      room: 'Gray Room',
      track: 'Phased',
      format: 'Talk',
      language: 'en',
      abstract: 'Brand back-end models!',
      speaker_ids: 'NQTF8Y',
    });
    const speakers = ofType(all, 'speaker');
    expect(new Set(speakers.map((s) => s.id)).size).toBe(speakers.length);
    expect(speakers.find((s) => s.id === 'NQTF8Y')).toMatchObject({
      full_name: 'Brian Robinson',
      first_name: 'Brian',
      last_name: 'Robinson',
    });
    const links = ofType(all, 'speaker_link');
    expect(links).toHaveLength(sessions.reduce((n, s) => n + s.speaker_ids!.split(',').length, 0));
    expect(lines.join('')).toContain('disagrees with the offsets');
  });
});

describe('frab XML', () => {
  it('reads events, persons and links; times without offset in the declared zone, DST included', async () => {
    const all = await records({ format: 'frab', path: join(OURS, 'frab-schedule.xml') });
    expectColumns(all);
    const [rust, night] = ofType(all, 'session');
    expect(rust).toMatchObject({
      id: '101',
      title: 'Rust & Friends',
      description: 'Long\ntext.',
      start: '2024-10-27T10:00:00+01:00',
      end: '2024-10-27T11:30:00+01:00',
      room: 'Saal 1',
      speaker_ids: 'p-7,8',
      is_service_session: 'false',
    });
    // 02:30 happens twice that night in Berlin: the first (summer time) is taken.
    expect(night).toMatchObject({
      start: '2024-10-27T02:30:00+02:00',
      end: '2024-10-27T02:15:00+01:00',
      timezone: 'Europe/Berlin',
      is_service_session: 'true',
    });
    expect(ofType(all, 'speaker').map((s) => [s.id, s.first_name, s.last_name])).toEqual([
      ['p-7', 'Ada King', 'Lovelace'],
      ['8', 'Grace', 'Hopper'],
    ]);
    expect(ofType(all, 'speaker_link').map((l) => [l.session_id, l.speaker_id, l.position])).toEqual([
      ['101', 'p-7', '1'],
      ['101', '8', '2'],
    ]);
  });

  it('a timezone: setting decides for times without an offset', async () => {
    const all = await records({
      format: 'frab',
      path: join(OURS, 'frab-schedule.xml'),
      timezone: 'America/New_York',
    });
    expect(ofType(all, 'session')[1]).toMatchObject({ start: '2024-10-27T02:30:00-04:00' });
  });
});

describe('wrong exports', () => {
  it('points a Sessions.json at the All export', async () => {
    await expect(
      records({ format: 'sessionize', path: join(SHARED, 'sessionize/Sessions.json') }),
    ).rejects.toMatchObject({
      code: 'SCHEDULE_UNEXPECTED_SHAPE',
      message: expect.stringContaining('give the "All" export'),
    });
  });

  it('names the XML line of a broken frab file', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'evsync-frab-')), 'broken.xml');
    writeFileSync(
      path,
      '<schedule>\n  <day date="2024-01-01">\n    <room name="A">\n  </day>\n</schedule>\n',
    );
    await expect(records({ format: 'frab', path })).rejects.toMatchObject({
      code: 'SCHEDULE_INVALID_XML',
      message: expect.stringMatching(/\(line \d+\)/),
    });
  });
});
