import { migration0001 } from './0001-schema.js';
import { migration0002 } from './0002-run-references-checked-per-batch.js';
import { migration0003 } from './0003-send-started-marks.js';
import { migration0004 } from './0004-run-order-job-locks-keyed-hashes.js';
import { migration0005 } from './0005-link-key-parts-and-retired.js';
import { migration0006 } from './0006-result-worker.js';
import { migration0007 } from './0007-result-pages-by-run.js';
import { migration0008 } from './0008-conferences.js';
import { migration0009 } from './0009-merged-user-aliases.js';
import { migration0010 } from './0010-run-pruning.js';
import { migration0011 } from './0011-unchanged-keys-per-chunk.js';
import { migration0012 } from './0012-job-notices.js';
import { migration0013 } from './0013-notices-per-conference.js';
import { migration0014 } from './0014-erasure.js';
import { migration0015 } from './0015-key-holds.js';
import { migration0016 } from './0016-lost-rows.js';
import { migration0017 } from './0017-removed-keys.js';
import { migration0018 } from './0018-id-map-by-platform-id.js';
import { migration0019 } from './0019-deleted-by-platform-id.js';
import type { Migration } from './migration.js';

export type { Migration } from './migration.js';

/** Every migration, in version order. Append only: never edit one that has shipped. */
export const MIGRATIONS: readonly Migration[] = [
  migration0001,
  migration0002,
  migration0003,
  migration0004,
  migration0005,
  migration0006,
  migration0007,
  migration0008,
  migration0009,
  migration0010,
  migration0011,
  migration0012,
  migration0013,
  migration0014,
  migration0015,
  migration0016,
  migration0017,
  migration0018,
  migration0019,
];
