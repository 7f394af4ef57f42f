// CPU accounting for the benches: the PostgreSQL backends' CPU time (from /proc) and a CPU profile
// of this process over one measured phase (BENCH_CPU_PROFILE).
import fs from 'node:fs';
import inspector from 'node:inspector/promises';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../src/db/client.ts';

/** CPU milliseconds (user + system) used so far by the PostgreSQL backends serving this database, by pid. */
export async function backendCpu(database: Database): Promise<Map<number, number>> {
  const rows = await queryRows<{ pid: number }>(database.db, sql`select pid from pg_stat_activity where datname = current_database()`);
  const ticks = 1000 / 100; // USER_HZ is 100 on Linux
  const cpu = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      cpu.set(pid, (Number(fields[11]) + Number(fields[12])) * ticks);
    } catch {
      // not on this machine (a remote server) or gone
    }
  }
  return cpu;
}

/** The CPU milliseconds the backends of `after` used since `before` (null: none readable here). */
export function cpuSince(before: Map<number, number>, after: Map<number, number>): number | null {
  if (after.size === 0) {
    return null;
  }
  let total = 0;
  for (const [pid, value] of after) {
    total += value - (before.get(pid) ?? 0);
  }
  return total;
}

/**
 * BENCH_CPU_PROFILE=<dir>: a CPU profile of this process from now until `stop(name)`, written as
 * <dir>/<name>.cpuprofile (open it in Chrome DevTools); null when the variable is unset.
 */
export async function startProfile(): Promise<{ stop(name: string): Promise<void> } | null> {
  const directory = process.env.BENCH_CPU_PROFILE;
  if (!directory) {
    return null;
  }
  const session = new inspector.Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop(name) {
      const { profile } = await session.post('Profiler.stop');
      fs.mkdirSync(directory, { recursive: true });
      fs.writeFileSync(path.join(directory, `${name}.cpuprofile`), JSON.stringify(profile));
      session.disconnect();
    },
  };
}
