import { describe, expect, it } from 'vitest';
import { PersonRows, type PersonRow } from './person-rows.js';

const row = (key: string, email: string, name: string, reached: number | null = null): PersonRow => ({
  key,
  email,
  raw_email: email,
  name,
  aliases: null,
  reached,
});

// Ticket QWE-1: Amy's account (created, seq 1), then handed on to Zed and refused (seq 5).
const ROWS = [row('QWE-1', 'amy@example.org', 'Amy Able', 1), row('QWE-1', 'zed@example.org', 'Zed Zimmer')];

describe('PersonRows', () => {
  it('leaves a row under the same key naming someone else to them', () => {
    const zed = new PersonRows({ emails: ['zed@example.org'], clientIds: [] });
    zed.take(ROWS, []);
    expect([...zed.emails]).toEqual(['zed@example.org']);
    expect(zed.sharedKeys()).toEqual(['QWE-1']);
    expect(zed.keyOfAnother('QWE-1')).toBe(true);
    expect(zed.otherEmails()).toEqual(['amy@example.org']);
    expect(zed.otherPeople()).toBe(1);

    const amy = new PersonRows({ emails: ['amy@example.org'], clientIds: [] });
    amy.take(ROWS, []);
    expect([...amy.emails]).toEqual(['amy@example.org']);
    expect(amy.keyOfAnother('QWE-1')).toBe(false);
  });

  it('joins a row under their key by its e-mail or an agreeing name, in any order', () => {
    const rows = [
      row('QWE-1', 'amy.baker@example.org', 'Amy Baker'),
      row('QWE-1', 'amy@example.org', 'Amy Baker'),
      row('QWE-1', 'amy@example.org', 'Amy Able', 1),
    ];
    const amy = new PersonRows({ emails: ['amy@example.org'], clientIds: [] });
    amy.take(rows, []);
    expect([...amy.emails].sort()).toEqual(['amy.baker@example.org', 'amy@example.org']);
    expect(amy.sharedKeys()).toEqual([]);
  });
});
