/** A numbered schema change. Applied once, in order, in its own transaction. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
