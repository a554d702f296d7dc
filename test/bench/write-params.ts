// Write-param validation cost per request: a typical generic-users row, a user with every
// field filled (bio XHTML, custom data JSON, URLs, address), and an event. Validation runs
// once per source row, so it sits inside the mapping layer's 100,000 rows/s budget (docs/design.md, "Performance targets").
// Figures are per CPU-second as well as wall time: the machine is shared.
import type { FlatParams } from '../../src/model/params.js';
import type { WriteOperation } from '../../src/platform/write-params/validate-write-params.js';
import { validateWriteParams } from '../../src/platform/write-params/validate-write-params.js';

const TARGET_ROWS_PER_SECOND = 100_000;
const seconds = Number(process.argv[2] ?? 3);

const typicalUser: FlatParams = {
  client_id: 'eb-1001',
  'user[first_name]': 'Ada',
  'user[last_name]': 'Lovelace',
  'user[svc_auth_attributes][email]': 'ada@example.com',
  'user[membership]': 'member',
  'user[employee_attributes][position]': 'Analyst',
  'user[employee_attributes][company_attributes][name]': 'Analytical Engines Ltd',
};
const fullUser: FlatParams = {
  ...typicalUser,
  'user[salutation]': 'Dr',
  'user[item_attributes][tags_list]': 'math, engines',
  'user[item_attributes][article_attributes][content]': '<p>First programmer &amp; poet&nbsp;of science.</p>',
  'user[item_attributes][icon_uri]': 'https://example.com/ada.png',
  'user[item_attributes][phones_attributes][0][work_number]': '+44 20 7946 0000',
  'user[account_attributes][web_links][website]': 'https://ada.example.com/',
  'user[account_attributes][web_links][linkedin]': 'https://www.linkedin.com/in/ada',
  'user[account_attributes][addresses_attributes][0][street]': '1 Main St',
  'user[account_attributes][addresses_attributes][0][city]': 'Springfield',
  'user[account_attributes][addresses_attributes][0][state]': 'IL',
  'user[account_attributes][addresses_attributes][0][country_code]': 'US',
  'user[account_attributes][profiles_attributes][0][custom_data]': '{"ticket":"VIP","diet":"vegan"}',
};
const event: FlatParams = {
  client_id: 'sess-42',
  'event[item_attributes][display_value]': 'Opening keynote',
  'event[item_attributes][article][content]': '<p>Welcome to the <em>conference</em>.</p>',
  'event[start]': '2026-05-04T09:00:00+02:00',
  'event[finish]': '2026-05-04T10:00:00+02:00',
  'event[track_name]': 'Main',
  'event[max_attendees]': '250',
};

function measure(label: string, operation: WriteOperation, params: FlatParams): void {
  let calls = 0;
  let issues = 0;
  const cpuStart = process.cpuUsage();
  const wallStart = performance.now();
  const until = wallStart + seconds * 1000;
  while (performance.now() < until) {
    for (let i = 0; i < 1000; i++) issues += validateWriteParams(operation, params, { vendor: 'svc' }).length;
    calls += 1000;
  }
  const wall = (performance.now() - wallStart) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const perCpuSecond = calls / cpuSeconds;
  console.log(
    `${label.padEnd(14)} ${Math.round(calls / wall).toLocaleString('en')} /s wall, ` +
      `${Math.round(perCpuSecond).toLocaleString('en')} /CPU-s (${((cpuSeconds / calls) * 1e6).toFixed(2)} µs each), ` +
      `${(perCpuSecond / TARGET_ROWS_PER_SECOND).toFixed(2)}× the 100,000 rows/s mapping budget, issues ${issues}`,
  );
}

measure('typical user', 'user.create', typicalUser);
measure('full user', 'user.create', fullUser);
measure('event', 'event.create', event);
console.log(`peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`);
