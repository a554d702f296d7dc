import { PGlite } from '@electric-sql/pglite';
const db = new PGlite(process.argv[2]!);
const r = await db.query(`SELECT c.relname, pg_total_relation_size(c.oid) AS total FROM pg_class c JOIN pg_namespace n ON n.oid=c.relnamespace WHERE n.nspname='public' AND c.relkind='r' ORDER BY 2 DESC LIMIT 6`);
for (const row of r.rows as any[]) console.log(row.relname, (Number(row.total)/1048576).toFixed(1), 'MB');
const d = await db.query(`SELECT pg_database_size(current_database()) AS s`); console.log('db', (Number((d.rows[0] as any).s)/1048576).toFixed(1));
await db.close();
