import { spawn, execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { startDistributedEnv } from '../helpers/distributed-env.js';
const workers = Number(process.argv[2] ?? 1);
const users = Number(process.argv[3] ?? 3000);
const per = Number(process.argv[5] ?? 8);
const prof = process.argv[4] === 'prof';
const cpuOf = (pid: number) => { try { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) / 100; } catch { return 0; } };
const pids = (name: string) => execSync(`pgrep -f ${name} || true`).toString().trim().split('\n').filter(Boolean).map(Number);
const groupCpu = (ps: number[]) => ps.reduce((a, p) => a + cpuOf(p), 0);
const env = await startDistributedEnv({ sandboxArgs: ['--faults', 'latency=20'] });
try {
  const ws = Array.from({ length: workers }, () => {
    const child = spawn(process.execPath, [...(prof ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : []), ...(process.env.PERF ? ['--perf-basic-prof'] : []), '/work/main/dist/cli/main.js', 'worker', '--concurrency', String(per)], { env: env.env, cwd: env.dir });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    return { child, out: () => out, exited: new Promise((r) => child.on('exit', r)) };
  });
  while (ws.some((w) => !w.out().includes('worker ready'))) await new Promise((r) => setTimeout(r, 100));
  const groups = { workers: ws.map((w) => w.child.pid!), postgres: pids('postgres'), redis: pids('redis-server'), sandbox: pids('sandbox') };
  const before = Object.fromEntries(Object.entries(groups).map(([k, v]) => [k, groupCpu(v)]));
  const perfs = process.env.PERF ? ws.map((w) => spawn('perf', ['record', '-F', '499', '-g', '-o', `/tmp/perf-${w.child.pid}.data`, '-p', String(w.child.pid)], { stdio: 'ignore' })) : [];
  const straces = process.env.STRACE ? ws.map((w) => spawn('strace', [...(process.env.STRACE === 'x' ? ['-e', 'trace=write,writev', '-s', '60', '-f'] : ['-c', '-f']), '-o', `/tmp/strace-${w.child.pid}.txt`, '-p', String(w.child.pid)], { stdio: 'ignore' })) : [];
  await new Promise((r) => setTimeout(r, 500));
  const t = performance.now();
  const run = await env.cli(['run', env.usersJob('p', users, 10_000, per * 3)]);
  const after = Object.fromEntries(Object.entries(groups).map(([k, v]) => [k, groupCpu(v)]));
  const secs = (performance.now() - t) / 1000;
  const m = run.output.match(/completed in ([\d.]+) s/);
  console.log('run', run.code, secs.toFixed(2), 's', m?.[0]);
  console.log('cpu ms/intent', Object.entries(after).map(([k, v]) => `${k} ${(((v - before[k]!) * 1000) / users).toFixed(2)}`).join(', '));
  for (const st of [...straces, ...perfs]) st.kill('SIGINT');
  await new Promise((r) => setTimeout(r, 500));
  for (const w of ws) w.child.kill('SIGTERM');
  await Promise.all(ws.map((w) => w.exited));
  for (const w of ws) console.log(w.out().split('\n').filter((l) => l.includes('TIMING') || l.includes('SLOW') || l.startsWith(' ') || l.includes('->')).join('\n'));
} finally {
  await env.close();
}
