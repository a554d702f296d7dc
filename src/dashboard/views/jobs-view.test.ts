import { describe, expect, it } from 'vitest';
import { HELD_KEYS_HEADING } from '../../sync/phases/held-keys.js';
import { jobsView } from './jobs-view.js';

const hold = {
  kind: 'user' as const,
  clientId: 'QWE-1',
  runId: '20261130-020000-aaaa',
  jobName: 'attendees',
  errorCode: 'EVSYNC_KEY_NOW_ANOTHER_PERSON',
  conference: 'myconf.example.com',
  heldAt: '2026-11-30T02:00:00.000Z',
};

describe('the held keys on the jobs summary', () => {
  // An organiser's find: a held key was in `evsync status` only, never on the dashboard.
  it('are listed as evsync status words them, the refusing run linked to its row', async () => {
    const page = String(await jobsView([], [hold]));
    expect(page).toContain(`${HELD_KEYS_HEADING}:`);
    expect(page).toContain('user &quot;QWE-1&quot; on myconf.example.com:');
    expect(page).toContain(
      '<a href="/runs/20261130-020000-aaaa/results?status=failed&amp;q=QWE-1">refused by run 20261130-020000-aaaa of job &quot;attendees&quot;</a>',
    );
  });
});
