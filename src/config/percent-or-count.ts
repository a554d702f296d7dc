import { z } from 'zod';

/** A percentage (`"10%"`, at most 100) or a whole number: a threshold of a job file. */
export function percentOrCount(percentHint: string) {
  return z.union([
    z
      .string()
      .regex(/^\d+(\.\d+)?%$/, percentHint)
      .transform((text) => ({ percent: Number(text.slice(0, -1)) }))
      .refine((t) => t.percent <= 100, 'a percentage is at most 100%'),
    z
      .number()
      .int()
      .nonnegative()
      .transform((count) => ({ count })),
  ]);
}

/** A threshold as read: a share in percent, or a count. */
export type PercentOrCount = { percent: number } | { count: number };
