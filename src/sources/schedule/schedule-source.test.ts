import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createScheduleSource, type ScheduleSourceOptions } from './schedule-source.js';
import { SCHEDULE_RECORD_COLUMNS } from './schedule-records.js';
import { COMMAND_LINE_ZONE_SETTINGS } from './conference-zone.js';
import { createLogger } from '../../log/logger.js';
import type { SourceItem } from '../source-row.js';

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
    // Keyed by the guid: merged schedules reuse numeric ids (docs/sources.md).
    expect(sessions[0]).toMatchObject({
      id: '8079583e-8321-506c-95af-fd2903a5f075',
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
      // pretalx's numeric person id, which its XML export writes too (docs/sources.md).
      speaker_ids: '26',
    });
    const speakers = ofType(all, 'speaker');
    expect(new Set(speakers.map((s) => s.id)).size).toBe(speakers.length);
    expect(speakers.find((s) => s.id === '26')).toMatchObject({
      code: 'NQTF8Y',
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
  it('takes biographies from the top-level <persons> list (FOSDEM 2026, made from pretalx)', async () => {
    const all = await records({
      format: 'frab',
      path: join(import.meta.dirname, '../../../test/fixtures/exports/fosdem-2026-janson-excerpt.xml'),
    });
    expectColumns(all);
    const speakers = ofType(all, 'speaker');
    expect(speakers).toHaveLength(12);
    expect(speakers.filter((s) => s.bio !== '')).toHaveLength(11);
    expect(speakers.find((s) => s.id === '4875')).toMatchObject({
      full_name: 'Michiel Leenaars',
      bio: expect.stringMatching(/^<p>/) as unknown,
    });
    expect(speakers.find((s) => s.id === '2')).toMatchObject({ full_name: 'FOSDEM Staff', bio: '' });
  });

  it('names the columns XML cannot carry on each row: the bio only without a <persons> list', async () => {
    const uncarried = async (path: string): Promise<Map<string, string[]>> => {
      const byType = new Map<string, string[]>();
      for await (const item of createScheduleSource({ display: 'test', format: 'pretalx', path }).rows())
        if (item.ok) byType.set(String(item.values.record_type), [...(item.uncarried ?? [])]);
      return byType;
    };
    const exports = join(import.meta.dirname, '../../../test/fixtures/exports');
    const xml = await uncarried(join(exports, 'pretalx-democon-2022.xml'));
    expect(xml.get('speaker')).toEqual(expect.arrayContaining(['bio', 'photo_url', 'links', 'answers']));
    expect(xml.get('session')).toEqual(['answers']);
    expect(xml.get('speaker_link')).toEqual([]);
    // FOSDEM's XML lists its people with their biographies: the bio is carried (and empty
    // for a person the list gives none).
    const fosdem = await uncarried(join(exports, 'fosdem-2026-janson-excerpt.xml'));
    expect(fosdem.get('speaker')).not.toContain('bio');
    expect(fosdem.get('speaker')).toContain('photo_url');
    // The JSON carries every column.
    const json = await uncarried(join(exports, 'pretalx-democon-2022.json'));
    expect([...json.values()].flat()).toEqual([]);
  });

  it('reads events, persons and links; times without offset in the declared zone, DST included', async () => {
    const all = await records({ format: 'frab', path: join(OURS, 'frab-schedule.xml') });
    expectColumns(all);
    const [rust, night] = ofType(all, 'session');
    expect(rust).toMatchObject({
      id: '5e1c4c1e-0000-4000-8000-000000000001',
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
      ['5e1c4c1e-0000-4000-8000-000000000001', 'p-7', '1'],
      ['5e1c4c1e-0000-4000-8000-000000000001', '8', '2'],
    ]);
  });

  it("the export's declared zone wins over timezone:, and the contradiction names both zones", async () => {
    const options = { format: 'frab' as const, path: join(OURS, 'frab-schedule.xml'), display: 'test' };
    const kept = createScheduleSource({ ...options, timezone: 'America/New_York' });
    const keptValues: Values[] = [];
    for await (const item of kept.rows()) if (item.ok) keptValues.push(item.values as Values);
    expect(ofType(keptValues, 'session')[1]).toMatchObject({ start: '2024-10-27T02:30:00+02:00' });
    expect(kept.notes?.()).toEqual([
      expect.stringMatching(
        /declares the time zone Europe\/Berlin and timezone: says America\/New_York: the export's zone is used.*override_timezone: America\/New_York/,
      ),
    ]);

    const overridden = createScheduleSource({ ...options, overrideTimezone: 'America/New_York' });
    const overriddenValues: Values[] = [];
    for await (const item of overridden.rows()) if (item.ok) overriddenValues.push(item.values as Values);
    expect(ofType(overriddenValues, 'session')[1]).toMatchObject({ start: '2024-10-27T02:30:00-04:00' });
    expect(overridden.notes?.()).toEqual([
      'override_timezone: America/New_York overrides the zone the export declares (Europe/Berlin): times are written in America/New_York',
    ]);

    // The same zone, under another name or not, is no contradiction.
    const same = createScheduleSource({ ...options, timezone: 'Europe/Berlin' });
    for await (const item of same.rows()) void item;
    expect(same.notes?.()).toEqual([]);
  });

  it('on the command line, the missing zone is asked for with --timezone', async () => {
    const path = writeTemp('no-zone.xml', frabXml(SESSION_WITHOUT_OFFSET, { zone: '' }));
    await expect(
      records({ format: 'frab', path, zoneSettingNames: COMMAND_LINE_ZONE_SETTINGS }),
    ).rejects.toMatchObject({
      code: 'SCHEDULE_TIMEZONE_REQUIRED',
      message: expect.stringContaining('give --timezone'),
    });
    await expect(records({ format: 'frab', path })).rejects.toMatchObject({
      message: expect.stringContaining('set timezone: in the source'),
    });
  });
});

const SESSION_WITHOUT_OFFSET = `      <event id="1" guid="g-1">
        <start>10:00</start><duration>00:30</duration><title>Zone-less</title>
        <persons></persons>
      </event>`;

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

const MAPPING_FIXTURES = join(import.meta.dirname, '../../../test/fixtures/mappings');
const EXCERPT_38C3 = join(MAPPING_FIXTURES, 'frab-38c3-excerpt.xml');

/** Every item of a source (rows and row problems), and the warnings it logged. */
async function read(
  options: Omit<ScheduleSourceOptions, 'display'> & { display?: string },
): Promise<{ items: SourceItem[]; warnings: string[] }> {
  const warnings: string[] = [];
  const logger = createLogger(
    { level: 'warn' },
    { write: (line: string) => void warnings.push((JSON.parse(line) as { msg: string }).msg) },
  );
  const items: SourceItem[] = [];
  for await (const item of createScheduleSource({ display: 'test', logger, ...options }).rows())
    items.push(item);
  return { items, warnings };
}
const valuesOf = (items: SourceItem[]): Values[] =>
  items.flatMap((item) => (item.ok ? [item.values as Values] : []));

function writeTemp(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'evsync-schedule-')), name);
  writeFileSync(path, text);
  return path;
}

/** A frab XML schedule of one day and one room with these `<event>` elements. */
function frabXml(events: string, { zone = 'Europe/Berlin', day = '' } = {}): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<schedule>
  <conference><title>T&#252;bix</title><time_zone_name>${zone}</time_zone_name></conference>
  <day index="1" date="2026-03-28"${day}>
    <room name="Gro&#223;er Saal">
${events}
    </room>
  </day>
</schedule>
`;
}

describe('frab XML from real exports', () => {
  it('decodes character references and entities in every field, text and attributes', async () => {
    const path = writeTemp(
      'refs.xml',
      frabXml(`      <event id="1" guid="g-1">
        <date>2026-03-28T10:00:00+01:00</date><start>10:00</start><duration>00:30</duration>
        <title>Caf&#233; &amp; &#x263A;</title>
        <description>Line one&#13;
Line &#x1F600; &amp;#228; &lt;b&gt;</description>
        <persons><person id="5">J&#xFC;rgen M&#252;ller</person></persons>
      </event>`),
    );
    const values = valuesOf((await read({ format: 'frab', path })).items);
    expect(ofType(values, 'session')[0]).toMatchObject({
      title: 'Café & ☺',
      description: 'Line one\nLine 😀 &#228; <b>',
      room: 'Großer Saal',
    });
    expect(ofType(values, 'speaker')[0]).toMatchObject({ full_name: 'Jürgen Müller', last_name: 'Müller' });
  });

  it('places sessions without per-session dates by the day change, as the dated export does', async () => {
    const xml = readFileSync(EXCERPT_38C3, 'utf8');
    const dated = ofType(valuesOf((await read({ format: 'frab', path: EXCERPT_38C3 })).items), 'session');
    const undatedPath = writeTemp('undated.xml', xml.replace(/\s*<date>[^<]*<\/date>/g, ''));
    const undated = await read({ format: 'frab', path: undatedPath });
    const sessions = ofType(valuesOf(undated.items), 'session');
    expect(sessions.map((s) => [s.id, s.start, s.end])).toEqual(dated.map((s) => [s.id, s.start, s.end]));
    // 00:15 on the list of 27 December is the night after it, not the morning before.
    // Session 248, keyed by its guid.
    expect(sessions.find((s) => s.id === '1c8f06f9-ce0d-51bc-9bf3-0a1f71e8e484')).toMatchObject({
      start: '2024-12-28T00:15:00+01:00',
      end: '2024-12-28T00:55:00+01:00',
    });
    expect(undated.warnings).toEqual([]);
  });

  it('keeps a time before the day starts on its date when the next date is past the day too', async () => {
    const xml = frabXml(
      ['10:00', '23:00', '01:30']
        .map(
          (time, index) =>
            `      <event id="${index + 1}"><start>${time}</start><duration>00:30</duration><title>T${index + 1}</title></event>`,
        )
        .join('\n'),
      { day: ' start="2026-03-28T10:30:00+01:00" end="2026-03-29T04:00:00+01:00"' },
    );
    const { items, warnings } = await read({ format: 'frab', path: writeTemp('early.xml', xml) });
    expect(ofType(valuesOf(items), 'session').map((s) => s.start)).toEqual([
      '2026-03-28T10:00:00+01:00',
      '2026-03-28T23:00:00+01:00',
      '2026-03-29T01:30:00+01:00',
    ]);
    expect(warnings).toEqual([
      '1 session(s) start outside the conference day they are listed under: check their date and start in the export',
    ]);
  });

  it('uses the conference day_change when days give no start', async () => {
    const xml = frabXml(
      ['23:30', '01:30']
        .map(
          (time, index) =>
            `      <event id="${index + 1}"><start>${time}</start><duration>01:00</duration><title>Night ${index + 1}</title></event>`,
        )
        .join('\n'),
    ).replace('</time_zone_name>', '</time_zone_name><day_change>04:00</day_change>');
    const sessions = ofType(
      valuesOf((await read({ format: 'frab', path: writeTemp('dc.xml', xml) })).items),
      'session',
    );
    expect(sessions.map((s) => s.start)).toEqual(['2026-03-28T23:30:00+01:00', '2026-03-29T01:30:00+01:00']);
  });

  it('warns, naming them, for sessions that start outside the day they are listed under', async () => {
    const xml = readFileSync(EXCERPT_38C3, 'utf8').replace(
      '<date>2024-12-27T23:15:00+01:00</date>',
      '<date>2024-12-29T23:15:00+01:00</date>',
    );
    const { items, warnings } = await read({ format: 'frab', path: writeTemp('moved.xml', xml) });
    expect(ofType(valuesOf(items), 'session')).toHaveLength(8);
    expect(warnings).toEqual([
      '1 session(s) start outside the conference day they are listed under: check their date and start in the export',
    ]);
  });

  it('writes UTC times of a conference in Asia/Kolkata in its zone, as the same instants', async () => {
    const path = writeTemp(
      'kolkata.xml',
      frabXml(
        `      <event id="1"><date>2026-03-28T04:30:00+00:00</date><start>04:30</start><duration>01:00</duration><title>Keynote</title></event>
      <event id="2"><date>2026-03-28T11:00:00Z</date><start>11:00</start><duration>00:45</duration><title>Panel</title></event>`,
        { zone: 'Asia/Kolkata' },
      ),
    );
    const { items, warnings } = await read({ format: 'frab', path });
    expect(ofType(valuesOf(items), 'session').map((s) => [s.start, s.end, s.timezone])).toEqual([
      ['2026-03-28T10:00:00+05:30', '2026-03-28T11:00:00+05:30', 'Asia/Kolkata'],
      ['2026-03-28T16:30:00+05:30', '2026-03-28T17:15:00+05:30', 'Asia/Kolkata'],
    ]);
    expect(warnings).toEqual([]);
  });

  it('names the session, its title and its line when it has no start', async () => {
    const xml =
      frabXml(`      <event id="1"><date>2026-03-28T10:00:00+01:00</date><duration>00:30</duration><title>Fine</title></event>
      <event id="56">
        <duration>00:30</duration>
        <title>Lost &amp; found</title>
        <persons><person id="9">Ada Lovelace</person></persons>
      </event>
      <event id="57"><date>2026-03-28T11:00:00+01:00</date><duration>half an hour</duration><title>Vague</title></event>`);
    const path = writeTemp('nostart.xml', xml);
    const lineOf = (tag: string): number => xml.slice(0, xml.indexOf(tag)).split('\n').length;
    const { items } = await read({ format: 'frab', path, display: 'nostart.xml' });
    expect(items.filter((item) => !item.ok)).toEqual([
      {
        ok: false,
        origin: { source: 'nostart.xml', row: 2, line: lineOf('<event id="56">') },
        code: 'SCHEDULE_SESSION_TIME_MISSING',
        message:
          'session 56 "Lost & found" has no start time (a date and time, or the day\'s date and a start): it and its 1 speaker link(s) are left out; add its time in the export',
      },
      {
        ok: false,
        origin: { source: 'nostart.xml', row: 3, line: lineOf('<event id="57">') },
        code: 'SCHEDULE_SESSION_TIME_MISSING',
        message:
          'session 57 "Vague" has a duration "half an hour" that is not hh:mm or minutes: it is left out; add its time in the export',
      },
    ]);
    expect(ofType(valuesOf(items), 'speaker_link')).toEqual([]);
  });

  it('says an empty .xml file is empty, whatever the format', async () => {
    const path = writeTemp('schedule.xml', '\n  \n');
    for (const format of ['frab', 'pretalx', 'sessionize'] as const) {
      await expect(read({ format, path, display: 'schedule.xml' })).rejects.toMatchObject({
        code: 'SCHEDULE_EMPTY_FILE',
        message: `${format} schedule schedule.xml is empty: export the schedule again, or check the path`,
      });
    }
  });

  it('reads a .xml file as XML even when it does not start with a tag', async () => {
    const path = writeTemp('schedule.xml', 'Service Unavailable\n');
    await expect(read({ format: 'frab', path })).rejects.toMatchObject({ code: 'SCHEDULE_INVALID_XML' });
  });

  it('says a truncated XML file is cut short, at its real last line', async () => {
    const xml = readFileSync(EXCERPT_38C3, 'utf8');
    const cut = xml.slice(0, xml.indexOf('We will look at'));
    await expect(
      read({ format: 'frab', path: writeTemp('cut.xml', cut), display: 'cut.xml' }),
    ).rejects.toMatchObject({
      code: 'SCHEDULE_INVALID_XML',
      message: expect.stringMatching(
        new RegExp(
          `^frab schedule cut.xml is cut short: it ends at line ${cut.trimEnd().split('\n').length} inside <schedule>`,
        ),
      ),
    });
  });
});

describe('c3voc schedule format 2 (schedule.events)', () => {
  const HUB = join(MAPPING_FIXTURES, 'c3voc-hub-38c3-v2.json');

  it('reads the hub example: sessions, people with their biographies, links with roles', async () => {
    const { items, warnings } = await read({ format: 'pretalx', path: HUB });
    const values = valuesOf(items);
    expectColumns(values);
    expect(ofType(values, 'session').map((s) => [s.id, s.title, s.start, s.end, s.room, s.track])).toEqual([
      [
        '270fa44c-821a-577f-8ca3-33e8d4a8c2a7',
        '38C3: Opening Ceremony',
        '2024-12-27T10:30:00+01:00',
        '2024-12-27T11:00:00+01:00',
        'Saal 1',
        'CCC',
      ],
      [
        'b1740c2f-0c44-5f1b-89ed-456a9eecf0b8',
        'A Competitive Time-Trial AI for Need for Speed:',
        '2024-12-28T00:15:00+01:00',
        '2024-12-28T00:55:00+01:00',
        'Saal ZIGZAG',
        'Hardware & Making',
      ],
    ]);
    expect(ofType(values, 'speaker')).toHaveLength(4);
    expect(ofType(values, 'speaker').find((s) => s.full_name === 'Aline Blankertz')).toMatchObject({
      id: '721a267b-b09d-5422-8221-4f9a71cfc727',
      bio: expect.stringContaining('angewandte Ökonomin'),
      photo_url: expect.stringContaining('/media/avatars/'),
    });
    expect(ofType(values, 'speaker_link')).toHaveLength(4);
    expect(warnings).toEqual([]);
  });

  it('warns when an export has no sessions at all', async () => {
    const hub = JSON.parse(readFileSync(HUB, 'utf8')) as { schedule: { events: unknown[] } };
    hub.schedule.events = [];
    const { items, warnings } = await read({
      format: 'pretalx',
      path: writeTemp('empty.json', JSON.stringify(hub)),
      display: 'empty.json',
    });
    expect(items).toEqual([]);
    expect(warnings).toEqual([
      'pretalx schedule empty.json has no sessions at all: nothing will be synced from it; check that it is the published schedule (not a draft or an empty day list)',
    ]);
  });

  it('refuses a shape it does not know instead of reading 0 sessions', async () => {
    const hub = JSON.parse(readFileSync(HUB, 'utf8')) as { schedule: { events?: unknown[] } };
    delete hub.schedule.events;
    await expect(
      read({ format: 'pretalx', path: writeTemp('days-only.json', JSON.stringify(hub)) }),
    ).rejects.toMatchObject({
      code: 'SCHEDULE_UNEXPECTED_SHAPE',
      message: expect.stringContaining('format 2'),
    });
    await expect(
      read({ format: 'frab', path: writeTemp('bare.json', '{"schedule":{"conference":{"title":"x"}}}') }),
    ).rejects.toMatchObject({ code: 'SCHEDULE_UNEXPECTED_SHAPE' });
  });
});
