/**
 * The few things the SQL ledger needs from a PostgreSQL connection, so that the embedded
 * (PGlite) and the server (pg) adapters run the very same statements.
 */
export interface SqlExecutor {
  /** One statement with `$n` params; rows as objects keyed by column name. */
  query<T extends object>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** Several statements without params (migrations). */
  execScript(sql: string): Promise<void>;
}

export interface SqlClient extends SqlExecutor {
  /** Runs `work` in one transaction on one connection; rolls back if it throws. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** Runs `work` holding the migration lock, so concurrent opens migrate once. */
  withMigrationLock<T>(work: (client: SqlClient) => Promise<T>): Promise<T>;
  /**
   * Takes a named lock that every process sharing the store sees: its release, or
   * undefined when someone holds it. With `wait`, waits until the holder lets go instead
   * (undefined only if `signal` aborts first). A process that dies lets it go.
   */
  tryLock(
    name: string,
    options?: { wait?: boolean; signal?: AbortSignal },
  ): Promise<(() => Promise<void>) | undefined>;
  /** Whether some process holds the lock `tryLock` takes under this name; it is not taken. */
  isLocked(name: string): Promise<boolean>;
  close(): Promise<void>;
}
