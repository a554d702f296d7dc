/**
 * `compute` remembered by its text argument, for answers asked again and again of a few
 * texts (a kind's param names on every call, the countries of an export's rows). Bounded:
 * the texts may come from a mapping file or an export, so the memo is emptied when it holds
 * `max` of them. An `undefined` answer is remembered too.
 */
export function boundedMemo<T>(compute: (text: string) => T, max: number): (text: string) => T {
  const known = new Map<string, T>();
  return (text) => {
    const hit = known.get(text);
    if (hit !== undefined || known.has(text)) return hit as T;
    const answer = compute(text);
    if (known.size >= max) known.clear();
    known.set(text, answer);
    return answer;
  };
}
