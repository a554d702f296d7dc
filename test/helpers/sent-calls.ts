/**
 * The calls a sandbox took besides the platform checks: a run that gets no answer proving
 * the platform up reads `GET /signature_test` once before it says "completed" (issue #40
 * item 3, docs/notifications.md). "Sends nothing" means no other call.
 */
export function sentBesidesChecks(counters: { total: number; calls: Record<string, number> }): number {
  return counters.total - (counters.calls['GET /signature_test'] ?? 0);
}
