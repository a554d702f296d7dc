import { describe, expect, it } from 'vitest';
import { conferenceHost, runConferenceHost } from './conference.js';

describe('what people are shown of a conference', () => {
  it('is its host and path, never the scheme or a trailing slash', () => {
    expect(conferenceHost('https://conf-a.example')).toBe('conf-a.example');
    expect(conferenceHost('http://127.0.0.1:4010/tenant/')).toBe('127.0.0.1:4010/tenant');
  });

  it("names a run's conference by host, and none for a run recorded before runs named theirs", () => {
    expect(runConferenceHost({ conference: { baseUrl: 'https://conf-b.example/x' } })).toBe(
      'conf-b.example/x',
    );
    expect(runConferenceHost({ conference: null })).toBeNull();
  });
});
