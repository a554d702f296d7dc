import { existsSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import { loadYamlFile } from '../config/yaml-file.js';
import { CODE } from '../errors/codes.js';
import { DEFAULT_VENDOR } from '../platform/vendor.js';
import { compileMappingFile } from './compile/compile-mapping-file.js';
import type { LoadedMapping } from './loaded-mapping.js';
import type { OnSharedEmail } from './mapped-item.js';
import { MappingError } from './mapping-error.js';
import { mappingFileSchemaFor } from './mapping-file-rules.js';
import { loadMappingModule } from './mapping-module.js';
import { isShippedMappingName, shippedMappingNames, shippedMappingsDir } from './shipped-mappings.js';

export interface LoadMappingOptions {
  /**
   * Folder that relative paths are resolved against (the job file's folder).
   * @defaultValue `process.cwd()`
   */
  baseDir?: string;
  /**
   * The vendor word in `user[…_auth_attributes]` param names.
   * @defaultValue `'svc'`
   */
  vendor?: string;
  /**
   * The step's `custom_data:` setting: `{ columns: all_unmapped }` puts every source column
   * the mapping does not read into each user's custom_data, by its header.
   * @defaultValue none: unread columns are only named by `validate` and `plan`
   */
  customData?: { columns: 'all_unmapped' } | undefined;
  /**
   * The step's `on_shared_email:`, over the mapping's: a shipped mapping leaves to the job
   * what to do with ticket holders sharing their order's e-mail.
   * @defaultValue the mapping's own (`error` unless it says otherwise)
   */
  onSharedEmail?: OnSharedEmail | undefined;
}

const MODULE_EXTENSIONS = new Set(['.ts', '.mts', '.js', '.mjs']);

/**
 * Loads a mapping: a bare name (`users`, `eventbrite`) is a shipped `mappings/<name>.yaml`;
 * a path is a YAML mapping file, or a TypeScript/JavaScript mapping module (the escape
 * hatch). A file with mistakes throws a `YamlFileError` naming every one with its line.
 */
export async function loadMapping(
  nameOrPath: string,
  options: LoadMappingOptions = {},
): Promise<LoadedMapping> {
  const vendor = options.vendor ?? DEFAULT_VENDOR;
  const file = mappingFilePath(nameOrPath, options.baseDir ?? process.cwd());
  const mapping = MODULE_EXTENSIONS.has(extname(file))
    ? await loadMappingModule(file, vendor)
    : compileMappingFile(
        loadYamlFile(file, mappingFileSchemaFor(vendor), 'mapping file'),
        { name: basename(file, extname(file)), file, vendor },
        { unmappedToCustomData: options.customData?.columns === 'all_unmapped' },
      );
  return options.onSharedEmail === undefined ? mapping : { ...mapping, onSharedEmail: options.onSharedEmail };
}

function mappingFilePath(nameOrPath: string, baseDir: string): string {
  if (isShippedMappingName(nameOrPath)) {
    const file = join(shippedMappingsDir(), `${nameOrPath}.yaml`);
    if (existsSync(file)) return file;
    throw new MappingError(
      `There is no shipped mapping "${nameOrPath}": use one of ${shippedMappingNames().join(', ')}, or a path such as ./${nameOrPath}.yaml`,
      { code: CODE.EVSYNC_MAPPING_NOT_FOUND },
    );
  }
  const file = resolve(baseDir, nameOrPath);
  if (!existsSync(file)) {
    throw new MappingError(`The mapping file ${file} does not exist`, {
      code: CODE.EVSYNC_MAPPING_NOT_FOUND,
    });
  }
  return file;
}
