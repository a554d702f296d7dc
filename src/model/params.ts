/**
 * Write params as the platform names them: flat, bracketed keys (`user[first_name]`,
 * `event_client_ids[0]`) mapped to string values. Intents, the client and the sandbox
 * all speak this one shape; nested objects exist only at the edges.
 */
export type FlatParams = Record<string, string>;
