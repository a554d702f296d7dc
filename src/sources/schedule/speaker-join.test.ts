import { describe, expect, it } from 'vitest';
import type { Source, SourceItem } from '../source-row.js';
import { scheduleRecord, type ScheduleRecord } from './schedule-records.js';
import { conflictProblems, joinSpeakers, oneSpeakerPerEmail } from './speaker-join.js';

function listOf(rows: Array<Record<string, string>>): Source {
  return {
    description: 'CSV file speakers.csv',
    rows(): AsyncIterable<SourceItem> {
      const items = rows.map((values, index): SourceItem => ({
        ok: true,
        origin: { source: 'speakers.csv', row: index + 1 },
        values,
      }));
      let next = 0;
      return {
        [Symbol.asyncIterator]: () => ({
          next: () =>
            Promise.resolve(
              next < items.length
                ? { value: items[next++]!, done: false as const }
                : { value: undefined, done: true as const },
            ),
        }),
      };
    },
  };
}

const speaker = (id: string, fullName: string, email = ''): ScheduleRecord<'speaker'> =>
  scheduleRecord('speaker', { id, full_name: fullName, email });

describe('joinSpeakers: the e-mails from the organiser’s list', () => {
  it('matches a pretalx speaker list keyed by code to speakers keyed by numeric id', async () => {
    const brian = scheduleRecord('speaker', { id: '26', code: 'NQTF8Y', full_name: 'Brian Robinson' });
    const outcome = await joinSpeakers(
      [brian],
      {
        source: listOf([{ ID: 'NQTF8Y', Name: 'B. Robinson', Email: 'brian@x.org' }]),
        id: 'ID',
        name: 'Name',
        columns: { email: 'Email' },
      },
      undefined,
    );
    expect(brian.email).toBe('brian@x.org');
    expect(outcome.matched).toEqual({ id: 0, idName: 1, email: 0, name: 0 });
  });

  it('matches by speaker id, else e-mail, else full name, and fills the e-mail and the names', async () => {
    const speakers = [
      speaker('A1', 'Ada Lovelace'),
      speaker('B2', 'Grace', 'g@x.org'),
      speaker('C3', 'Zitro'),
    ];
    const outcome = await joinSpeakers(
      speakers,
      {
        source: listOf([
          { 'Speaker ID': 'A1', Mail: 'ada@x.org', First: 'Ada', Last: 'Lovelace' },
          { 'Speaker ID': '', Mail: 'G@X.org', First: 'Grace', Last: 'Hopper' },
          { 'Speaker ID': '', Mail: 'zitro@x.org', First: 'zitro', Last: '' },
        ]),
        id: 'speaker_id',
        name: ['First', 'Last'],
        columns: { email: 'mail', first_name: 'First', last_name: 'Last' },
      },
      undefined,
    );
    expect(speakers.map((s) => [s.email, s.first_name, s.last_name])).toEqual([
      ['ada@x.org', 'Ada', 'Lovelace'],
      ['G@X.org', 'Grace', 'Hopper'],
      ['zitro@x.org', 'zitro', ''],
    ]);
    expect(outcome.matched).toEqual({ id: 0, idName: 1, email: 1, name: 1 });
    expect(outcome.unmatched.count).toBe(0);
  });

  it('never guesses from a key two rows disagree on, and says who is left without', async () => {
    const speakers = [speaker('7', 'Sam'), speaker('8', 'Kim')];
    const warnings: unknown[][] = [];
    const outcome = await joinSpeakers(
      speakers,
      {
        source: listOf([
          { id: '7', name: 'Sam', email: 'sam.one@x.org' },
          { id: '7', name: 'Sam', email: 'sam.two@x.org' },
          { id: '', name: 'Kim', email: 'kim@x.org' },
          { id: '', name: 'Kim', email: 'kim@x.org' },
        ]),
        id: 'id',
        name: 'name',
        columns: { email: 'email' },
      },
      { warn: (...args: unknown[]) => warnings.push(args), info: () => undefined } as never,
    );
    expect(speakers.map((s) => s.email)).toEqual(['', 'kim@x.org']);
    expect(outcome.ambiguous).toEqual({ count: 1, examples: ['speaker 7 (Sam)'] });
    expect(outcome.unmatched.examples).toEqual(['7 (Sam)']);
    expect(warnings[0]?.[0]).toMatchObject({ unmatched: 1, ambiguous: 1 });
  });

  it('takes no e-mail from a row whose id the export gives to another name, and names both', async () => {
    const thomas = speaker('2749', 'Thomas Grimes');
    const ada = speaker('3001', 'Ada Lovelace');
    const outcome = await joinSpeakers([thomas, ada], {
      source: listOf([{ id: '2749', name: 'Ada Lovelace', email: 'ada@x.org' }]),
      id: 'id',
      name: 'name',
      columns: { email: 'email' },
    });
    // Nobody gets the row: not Thomas by its id, not Ada by its name.
    expect([thomas.email, ada.email]).toEqual(['', '']);
    expect(outcome.conflicts).toHaveLength(1);
    expect(outcome.conflicts[0]).toMatchObject({
      id: '2749',
      exportNames: ['Thomas Grimes'],
      listName: 'Ada Lovelace',
    });
    expect(outcome.conflicts[0]!.speaker).toBe(thomas);
    expect(outcome.conflicts[0]!.message).toMatch(
      /speaker 2749 "Thomas Grimes".*row 1 of CSV file speakers.csv gives id 2749 to "Ada Lovelace"/,
    );
    expect(conflictProblems(outcome).get(thomas)?.problem.code).toBe('SCHEDULE_SPEAKER_LIST_CONFLICT');
    expect(outcome.unmatched.examples).toEqual(['3001 (Ada Lovelace)']);
  });

  it('joins each person of an id the export shares (a split person 3~hash) by id and name together', async () => {
    const maxA = speaker('3~aaaa', 'Max Power');
    const maxB = speaker('3~bbbb', 'Max Mustermann');
    const lone = speaker('3~cccc', 'Max');
    const outcome = await joinSpeakers([maxA, maxB, lone], {
      source: listOf([
        { id: '3', name: 'Max Mustermann', email: 'mm@x.org' },
        { id: '3', name: 'max power', email: 'mp@x.org' },
        { id: '3', name: 'Erika', email: 'erika@x.org' },
      ]),
      id: 'id',
      name: 'name',
      columns: { email: 'email' },
    });
    expect([maxA.email, maxB.email, lone.email]).toEqual(['mp@x.org', 'mm@x.org', '']);
    expect(outcome.matched.idName).toBe(2);
    // A shared id's disagreeing row is said, but it is nobody's in particular.
    expect(outcome.conflicts.map((c) => [c.id, c.listName, c.speaker])).toEqual([['3', 'Erika', undefined]]);
  });

  it('does not join by id alone an id the export gives to several people', async () => {
    const one = speaker('3~aaaa', 'Max Power');
    const two = speaker('3~bbbb', 'Erika Muster');
    const outcome = await joinSpeakers([one, two], {
      source: listOf([{ id: '3', email: 'who@x.org' }]),
      id: 'id',
      columns: { email: 'email' },
    });
    expect([one.email, two.email]).toEqual(['', '']);
    expect(outcome.ambiguous.count).toBe(1);
  });

  it('stops with the columns the list has when the job names one it lacks', async () => {
    await expect(
      joinSpeakers([speaker('1', 'A')], {
        source: listOf([{ ID: '1', 'E-Mail': 'a@x.org' }]),
        id: 'ID',
        columns: { email: 'Email Address' },
      }),
    ).rejects.toThrow(/has no column "Email Address" \(its columns: ID, E-Mail\)/);
  });
});

describe('oneSpeakerPerEmail', () => {
  it('takes speakers given one e-mail as one person: their links move to the first, once per session', () => {
    const records = [
      speaker('7', 'Sam', 'sam@x.org'),
      speaker('0~ab', 'Sam', 'SAM@x.org'),
      scheduleRecord('speaker_link', { session_id: 's1', speaker_id: '7' }),
      scheduleRecord('speaker_link', { session_id: 's1', speaker_id: '0~ab' }),
      scheduleRecord('speaker_link', { session_id: 's2', speaker_id: '0~ab' }),
    ];
    const out = oneSpeakerPerEmail(records.map((item) => ({ item }))).map(({ item }) => item);
    expect(
      out.map((r) =>
        'problem' in r ? '' : `${r.record_type}:${'id' in r ? r.id : `${r.session_id}/${r.speaker_id}`}`,
      ),
    ).toEqual(['speaker:7', 'speaker_link:s1/7', 'speaker_link:s2/7']);
  });

  it('keeps apart speakers given one e-mail under different names', () => {
    const records = [speaker('7', 'Sam Smith', 'x@x.org'), speaker('8', 'Kim Lee', 'x@x.org')];
    expect(oneSpeakerPerEmail(records.map((item) => ({ item })))).toHaveLength(2);
  });
});
