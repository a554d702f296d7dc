import { describe, expect, it } from 'vitest';
import { humanLine, wantsHumanLogs } from './human-lines.js';

describe('human log lines on a terminal', () => {
  it('reads as a short line: the message, then its fields, with the level for warnings', () => {
    const json = JSON.stringify({
      level: 40,
      time: new Date(2026, 10, 22, 14, 3, 7).getTime(),
      pid: 2,
      hostname: 'h',
      job: 'conf',
      ids: 1,
      examples: ['id 0: 253 names'],
      msg: 'some person ids stand for several names',
    });
    expect(humanLine(`${json}\n`)).toBe(
      '14:03:07 evsync warning: some person ids stand for several names (job conf, ids 1, examples id 0: 253 names)\n',
    );
    expect(humanLine(JSON.stringify({ level: 30, msg: 'run planned', work: 3 }))).toBe(
      'evsync: run planned (work 3)\n',
    );
  });

  it('is chosen on a terminal, JSON elsewhere, and EVSYNC_LOG_FORMAT decides over both', () => {
    expect(wantsHumanLogs({}, true)).toBe(true);
    expect(wantsHumanLogs({}, false)).toBe(false);
    expect(wantsHumanLogs({ EVSYNC_LOG_FORMAT: 'json' }, true)).toBe(false);
    expect(wantsHumanLogs({ EVSYNC_LOG_FORMAT: 'text' }, false)).toBe(true);
  });
});
