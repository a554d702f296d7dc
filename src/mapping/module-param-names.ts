import { CODE } from '../errors/codes.js';
import { authAttributes } from '../platform/vendor.js';
import type { FlatParams } from '../model/params.js';
import type { IntentKind } from '../model/intent.js';
import type { DraftProblem, IntentDraft } from './loaded-mapping.js';
import { resolveParamName } from './param-aliases.js';
import { isKnownParam, unknownParamMessage } from './param-name-problem.js';

/** What one name a module wrote stands for: the full param name, or why it cannot be used. */
type Resolved = { name: string } | { problem: string };

/**
 * The param names of a mapping module's intents, held to the rules a YAML mapping's are
 * held to when it loads: short names expand (`email` → `user[svc_auth_attributes][email]`),
 * a name the platform does not know is that row's problem, naming the param and the fix,
 * and is not sent. A module's names are only known row by row, so they are checked here,
 * once per distinct (kind, name): YAML mappings never pay for it.
 */
export class ModuleParamNames {
  private readonly cache = new Map<string, Resolved>();

  constructor(
    private readonly vendor: string,
    /** The module's file name, for messages. */
    private readonly file: string,
  ) {}

  /**
   * The draft with its params (and columns) under their full names, without the unknown
   * ones; their problems go to `problems`.
   */
  resolve(draft: IntentDraft, problems: DraftProblem[]): IntentDraft {
    let params: FlatParams | undefined;
    let columns: Record<string, string> | undefined;
    const written = Object.keys(draft.params);
    for (let index = 0; index < written.length; index++) {
      const name = written[index]!;
      const resolved = this.lookup(draft.kind, name);
      if ('name' in resolved && resolved.name === name && params === undefined) continue;
      // The first name that changes: copy what came before, then go on copying.
      if (params === undefined) {
        params = {};
        columns = draft.columns === undefined ? undefined : {};
        for (const earlier of written.slice(0, index)) this.keep(draft, earlier, earlier, params, columns);
      }
      if ('problem' in resolved) {
        problems.push({
          field: draft.columns?.[name] ?? name,
          param: name,
          message: `${resolved.problem} (fix the mapRow of the mapping module ${this.file})`,
          code: CODE.MAPPING_UNKNOWN_PARAM,
        });
        continue;
      }
      if (Object.hasOwn(params, resolved.name)) {
        const earlier = written.find(
          (other) => other !== name && this.nameOf(draft.kind, other) === resolved.name,
        );
        problems.push({
          field: draft.columns?.[name] ?? name,
          param: resolved.name,
          message: `${resolved.name} is set twice, as "${earlier ?? resolved.name}" and as "${name}": keep one (fix the mapRow of the mapping module ${this.file})`,
          code: CODE.MAPPING_DUPLICATE_PARAM,
        });
        continue;
      }
      this.keep(draft, name, resolved.name, params, columns);
    }
    if (params === undefined) return draft;
    const resolved: IntentDraft = { ...draft, params };
    if (columns !== undefined) resolved.columns = columns;
    return resolved;
  }

  private keep(
    draft: IntentDraft,
    written: string,
    name: string,
    params: FlatParams,
    columns: Record<string, string> | undefined,
  ): void {
    params[name] = draft.params[written]!;
    const column = draft.columns?.[written];
    if (columns !== undefined && column !== undefined) columns[name] = column;
  }

  private nameOf(kind: IntentKind, written: string): string | undefined {
    const resolved = this.lookup(kind, written);
    return 'name' in resolved ? resolved.name : undefined;
  }

  private lookup(kind: IntentKind, written: string): Resolved {
    const id = `${kind}\u0000${written}`;
    let resolved = this.cache.get(id);
    if (resolved === undefined) {
      resolved = resolveModuleParam(kind, written, this.vendor);
      this.cache.set(id, resolved);
    }
    return resolved;
  }
}

function resolveModuleParam(kind: IntentKind, written: string, vendor: string): Resolved {
  // A module hands over one text per param: a list name's `[n]` is its first item.
  const name = resolveParamName(kind, written, vendor).replace(/\[n\]/g, '[0]');
  // A module may build the vendor word from its context: only another word is a mistake.
  const auth = /^user\[(\w+)_auth_attributes\]/.exec(name);
  if (auth !== null && !name.startsWith(authAttributes(vendor))) {
    return {
      problem: `${written} names the vendor "${auth[1]}", but it is "${vendor}" here (EVSYNC_VENDOR): write the short name (email, password), user[{vendor}_auth_attributes][…], or build the name from context.vendor`,
    };
  }
  if (isKnownParam(kind, name, vendor)) return { name };
  return { problem: unknownParamMessage(kind, written) };
}
