/**
 * `String.prototype.isWellFormed` (ES2024) is in Node.js 20, which `engines` requires; the
 * project's `lib` stays ES2023 so that newer APIs Node 20 lacks are type errors.
 */
interface String {
  /** Whether the string holds no lone surrogate. */
  isWellFormed(): boolean;
}
