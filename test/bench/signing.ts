/**
 * Signing + encoding of a 25-param user payload (docs/design.md, "Performance targets"): what the client does per call
 * before the network. Baseline: 100,000 operations/s on one core.
 *
 *   npx tsx test/bench/signing.ts [seconds]
 */
import { buildHttpRequest } from '../../src/platform/request-builder.js';
import type { FlatParams } from '../../src/model/params.js';
import { md5Hex, signRequest } from '../../src/platform/signing.js';

const BASELINE_OPS = 100_000;
const seconds = Number(process.argv[2] ?? 3);

const body: FlatParams = {
  client_id: 'reg-000123',
  'user[salutation]': 'Dr.',
  'user[first_name]': 'Ada',
  'user[last_name]': 'Lovelace-Byron',
  'user[membership]': 'speaker',
  'user[svc_auth_attributes][email]': 'ada.lovelace@example.com',
  'user[svc_auth_attributes][email_confirmation]': 'ada.lovelace@example.com',
  'user[account_attributes][account_name]': 'ada',
  'user[employee_attributes][position]': 'Analyst & Engineer',
  'user[employee_attributes][company_attributes][name]': 'Analytical Engines Ltd.',
  'user[item_attributes][tags_list]': 'math, engines, poetry+science',
  'user[item_attributes][phones_attributes][0][work_number]': '+44 20 7946 0000',
  'user[item_attributes][phones_attributes][0][cell_number]': '+44 7700 900000',
  'user[item_attributes][article_attributes][content]': '<p>First programmer.</p>\n<p>Zoë 李 100% ✓</p>',
  'user[account_attributes][web_links][blog]': 'https://example.com/blog?a=1&b=2',
  'user[account_attributes][web_links][linkedin]': 'https://linkedin.example/ada',
  'user[account_attributes][web_links][twitter]': 'https://twitter.example/ada',
  'user[account_attributes][web_links][website]': 'https://ada.example',
  'user[account_attributes][profiles_attributes][0][custom_data]': '{"badge":"VIP","diet":"veg"}',
  'user[account_attributes][preferences_attributes][0][key]': 'newsletter',
  'user[account_attributes][preferences_attributes][0][value]': '1',
  'user[account_attributes][addresses_attributes][0][street]': '12 St James’s Square',
  'user[account_attributes][addresses_attributes][0][city]': 'London',
  'user[account_attributes][addresses_attributes][0][postal_code]': 'SW1Y 4LB',
  'user[account_attributes][addresses_attributes][0][country_code]': 'GB',
};

const credentials = { keyId: 4711, signingKey: 'bench-signing-key-0123456789' };
const request = { method: 'POST' as const, path: '/user', body };
if (Object.keys(body).length !== 25) throw new Error('the payload must have 25 params');

// Warm up the JIT, then time whole batches to keep clock reads out of the loop.
let sink = 0;
for (let i = 0; i < 20_000; i += 1) sink += buildHttpRequest(request, credentials).target.length;

let ops = 0;
const cpuStart = process.cpuUsage();
const started = performance.now();
const deadline = started + seconds * 1000;
while (performance.now() < deadline) {
  for (let i = 0; i < 1000; i += 1) sink += buildHttpRequest(request, credentials).target.length;
  ops += 1000;
}
const elapsed = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuStart);
// On a shared machine the wall clock includes time other processes held the core.
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
const perSecond = ops / elapsed;
const perCpuSecond = ops / cpuSeconds;

console.log(`signing + form encoding, 25-param user payload (POST /user), ${elapsed.toFixed(2)} s`);
console.log(`  operations:    ${ops.toLocaleString('en-US')}`);
console.log(`  ops/s (wall):  ${Math.round(perSecond).toLocaleString('en-US')}`);
console.log(
  `  ops/CPU-s:     ${Math.round(perCpuSecond).toLocaleString('en-US')} (${cpuSeconds.toFixed(2)} s of CPU)`,
);
console.log(`  µs/op (CPU):   ${((1e6 * cpuSeconds) / ops).toFixed(2)}`);
console.log(
  `  load average:  ${(await import('node:os')).loadavg()[0]?.toFixed(1)} on ${(await import('node:os')).availableParallelism()} cores`,
);
console.log(
  `  vs baseline:   ${(perCpuSecond / BASELINE_OPS).toFixed(2)}× of ${BASELINE_OPS.toLocaleString('en-US')}/s (per CPU-second)`,
);
// Calibration: the MD5 of this payload's signing string alone, the floor of any signer.
const signingString = signRequest({ ...credentials, query: { format: 'json' }, body }).signingString;
const md5Start = process.cpuUsage();
for (let i = 0; i < 50_000; i += 1) sink += md5Hex(signingString).length;
const md5Cpu = process.cpuUsage(md5Start);
const md5PerCpuSecond = 50_000 / ((md5Cpu.user + md5Cpu.system) / 1e6);
console.log(
  `  calibration:   MD5 of the ${signingString.length}-char signing string alone: ${Math.round(md5PerCpuSecond).toLocaleString('en-US')}/CPU-s; signing + encoding costs ${(md5PerCpuSecond / perCpuSecond).toFixed(1)}× one MD5`,
);
console.log(`  peak RSS:      ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
if (sink === 0) console.log('');
