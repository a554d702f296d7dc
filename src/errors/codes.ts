/**
 * Every code evsync shows a person, in one place: on an error that stops a command, on a
 * row's result in the ledger and its reports, and on a field's problem in `evsync validate`.
 * Callers match on these codes, never on message text; `docs/errors.md` is generated from
 * this catalog (`npm run docs:errors`) and a test fails when it is stale.
 *
 * A code is UPPER_SNAKE_CASE and its first word is the area where the fix lies
 * (docs/errors.md, "How codes are named"):
 * - `EVSYNC_` evsync's own setup and machinery: the command line, configuration, runs,
 *   the ledger, calls to the platform (`EVSYNC_PLATFORM_`), the sandbox;
 * - `SOURCE_`, `CSV_`, `SCHEDULE_` the source being read (any source, a CSV file, a
 *   schedule export);
 * - `MAPPING_` a mapping, or a row's values under it;
 * - no prefix: a value that breaks one of the platform's write-param rules (`REQUIRED`,
 *   `TOO_LONG`…), always shown beside the param it concerns, and the notes of
 *   `evsync validate` (`SKIPPED`, `DUPLICATE_FIRST`, `DUPLICATE_LAST`).
 */

/** The layer that raises a code. */
export type CodeLayer =
  'cli' | 'config' | 'sources' | 'mapping' | 'write-params' | 'sync' | 'ledger' | 'platform' | 'sandbox';

/**
 * The `retryable` flag of an error with this code: `retryable` when a later try of the same
 * thing can succeed (the platform client tries again by itself), `permanent` when evsync
 * does not try again by itself, `by status` when the answer's status decides. Row notes
 * and field problems, which are no errors, have none.
 */
export type CodeRetry = 'retryable' | 'permanent' | 'by status';

export interface CodeInfo {
  layer: CodeLayer;
  /** One line: what happened. */
  meaning: string;
  /** What the person who sees it does about it. */
  action: string;
  retry?: CodeRetry;
}

export const ERROR_CATALOG = {
  // The command line and configuration.
  EVSYNC_USAGE: {
    layer: 'cli',
    meaning: 'The command line cannot be used as given: options that conflict, or a missing argument.',
    action: 'Change the command as the message says; `evsync help COMMAND` lists its options.',
    retry: 'permanent',
  },
  EVSYNC_FILE: {
    layer: 'cli',
    meaning: 'A path given on the command line cannot be used: it is missing, a folder, or not permitted.',
    action: 'Check the path and its permissions, or give another one.',
    retry: 'permanent',
  },
  EVSYNC_REPORT_UNWRITABLE: {
    layer: 'cli',
    meaning: 'The `--report` file cannot be written (no such folder, no permission, disk full).',
    action: 'Give another report path, or free some space.',
    retry: 'permanent',
  },
  EVSYNC_PLATFORM_SIGNATURE_REJECTED: {
    layer: 'cli',
    meaning: '`evsync ping`: the platform refused the signature of the configured key.',
    action: 'Check EVSYNC_KEY_ID and EVSYNC_SIGNING_KEY; `evsync sign` shows what is signed.',
    retry: 'permanent',
  },
  EVSYNC_CONFIG: {
    layer: 'config',
    meaning: 'A setting (environment, `.env`, job file) is missing or not valid: the command cannot start.',
    action: 'Fix the setting the message names.',
    retry: 'permanent',
  },
  EVSYNC_SMTP_NOT_ENCRYPTED: {
    layer: 'sync',
    meaning:
      'The SMTP server of an e-mail channel offers no TLS (no STARTTLS on smtp://): evsync does not send its login unencrypted, so the message was not sent.',
    action:
      'Use smtps:// (port 465) or a server that offers STARTTLS; on a trusted network only, set `allow_login_without_tls: true` on the channel (docs/notifications.md).',
    retry: 'permanent',
  },
  EVSYNC_CONFERENCE_ALIAS: {
    layer: 'sync',
    meaning:
      'The base URL is new to the ledger, but the platform there answers as a conference the ledger knows by another URL (the same objects by id): a run would send again what that conference has, check-ins twice.',
    action:
      'Point EVSYNC_BASE_URL (or the job’s platform variable) back at the URL the message names, or run with --same-conference to sync it with what the ledger knows of that conference.',
    retry: 'permanent',
  },
  EVSYNC_CONFERENCE_MISMATCH: {
    layer: 'config',
    meaning:
      'A resume or retry would send a run to another conference than the one it wrote to (the message names both hosts).',
    action:
      "Point the job's platform variables (or EVSYNC_BASE_URL) back at the run's conference, or run the job against the new one instead.",
    retry: 'permanent',
  },
  EVSYNC_INVALID_FILE: {
    layer: 'config',
    meaning:
      'A job or mapping file is not valid YAML or breaks a rule; every problem is listed with its line.',
    action: 'Fix the file at the lines named; `evsync validate` checks it without sending anything.',
    retry: 'permanent',
  },

  // Sources.
  SOURCE_FILE_NOT_FOUND: {
    layer: 'sources',
    meaning: 'The source file does not exist.',
    action: 'Check the path (in a job file it is relative to the job file).',
    retry: 'permanent',
  },
  SOURCE_FILE_UNREADABLE: {
    layer: 'sources',
    meaning: 'The source file cannot be read: a folder, or no permission.',
    action: "Give the file's path and check its permissions.",
    retry: 'permanent',
  },
  SOURCE_INVALID_JSON: {
    layer: 'sources',
    meaning: 'A JSON export (a pretix order export) is not valid JSON.',
    action: 'Export it again, or check the file.',
    retry: 'permanent',
  },
  SOURCE_UNEXPECTED_SHAPE: {
    layer: 'sources',
    meaning:
      'A JSON export is not of the expected format (for pretix: `event.orders` with `positions`, and `event.items`); the first problems are listed with their paths.',
    action:
      'Check that the job’s source kind names the export this file is (pretix_json: pretix’s “Order data (JSON)”).',
    retry: 'permanent',
  },
  SOURCE_URL_ENV_UNSET: {
    layer: 'sources',
    meaning: "The environment variable that holds a database source's connection URL is not set.",
    action: 'Export it (or put it in `.env`) with a URL such as postgres://user:password@host:5432/db.',
    retry: 'permanent',
  },
  SOURCE_URL_INVALID: {
    layer: 'sources',
    meaning: 'The connection URL of a database source is not a URL of its kind (its value is never shown).',
    action: 'Set it like postgres://… or mysql://…; percent-encode @, : and / in the password.',
    retry: 'permanent',
  },
  SOURCE_DB_UNREACHABLE: {
    layer: 'sources',
    meaning: 'The source database cannot be reached with the configured URL.',
    action: 'Check that the server is up and the URL is right, then run again.',
    retry: 'retryable',
  },
  SOURCE_QUERY_FAILED: {
    layer: 'sources',
    meaning: "The source database refused the job's query.",
    action: 'Fix the query in the job file; the message carries the database’s reason.',
    retry: 'permanent',
  },
  SOURCE_QUERY_NOT_READ_ONLY: {
    layer: 'sources',
    meaning:
      "The job's query is not one read: a second statement, a statement that changes data, `SELECT … INTO`, or a row lock.",
    action: 'Write one SELECT or WITH … SELECT; evsync never writes to a source.',
    retry: 'permanent',
  },
  SOURCE_DUPLICATE_COLUMN: {
    layer: 'sources',
    meaning:
      "The job's query returns two columns or more of the same name (a join's `a.email` and `c.email`): a row holds one value per name, so all but the last would be lost.",
    action:
      'Give each column its own name with AS in the query (`c.email AS assistant_email`); the message names the repeated ones.',
    retry: 'permanent',
  },
  SOURCE_QUERY_PARAM_MISSING: {
    layer: 'sources',
    meaning: 'The query uses a `:name` that the source’s `params:` does not give.',
    action: 'Add the value under `params:` in the job file.',
    retry: 'permanent',
  },
  SOURCE_BAD_TIMEZONE: {
    layer: 'sources',
    meaning: 'A `timezone:` setting is not an IANA time zone.',
    action: 'Write a zone such as Europe/Berlin or America/New_York.',
    retry: 'permanent',
  },
  CSV_NO_HEADER: {
    layer: 'sources',
    meaning: 'The CSV file is empty: it has no header row naming the columns.',
    action: 'Export it again with its header row.',
    retry: 'permanent',
  },
  CSV_EMPTY_HEADER: {
    layer: 'sources',
    meaning: 'The header row has an empty name between named columns.',
    action: 'Name every column in the first row, or delete the empty columns.',
    retry: 'permanent',
  },
  CSV_DUPLICATE_HEADER: {
    layer: 'sources',
    meaning: 'The header row names the same column more than once.',
    action: 'Rename or delete the duplicates so that each column has a unique name.',
    retry: 'permanent',
  },
  CSV_MALFORMED_HEADER: {
    layer: 'sources',
    meaning: 'The header row has a malformed or unclosed quote.',
    action: 'Fix the quoting of the first row.',
    retry: 'permanent',
  },
  CSV_RAGGED_ROW: {
    layer: 'sources',
    meaning: 'A row has fewer or more fields than the header has names; the row is not sent.',
    action: 'Fix the row (often a comma inside an unquoted value); the rest of the file is read.',
  },
  CSV_VALUE_IN_UNNAMED_COLUMN: {
    layer: 'sources',
    meaning: 'A row has a value in a column that has no name in the header; the row is not sent.',
    action: 'Name the column in the header, or remove the value.',
  },
  CSV_UNTERMINATED_QUOTE: {
    layer: 'sources',
    meaning: 'A quoted value is never closed; the message names the line where it opened.',
    action: 'Close the quote, or write a quote inside a quoted value as two quotes ("").',
  },
  CSV_RECORD_TOO_LONG: {
    layer: 'sources',
    meaning:
      'A record is longer than the limit (1,048,576 characters unless the source sets max_record_chars) on one line: the row is not read, and reading goes on at the next line.',
    action:
      'Check the export (a file without line breaks, a value pasted by mistake), or raise max_record_chars in the source.',
    retry: 'permanent',
  },
  CSV_NOT_UTF8: {
    layer: 'sources',
    meaning: 'A row of a file read as UTF-8 holds a byte that is not UTF-8; the row is not sent.',
    action:
      'Correct the value and save the file as UTF-8, or set `encoding:` in the source if the whole file is in another encoding.',
  },
  CSV_UNDEFINED_BYTE: {
    layer: 'sources',
    meaning:
      'A row of a file read in a one-byte encoding (Windows-1252 as guessed, or the one `encoding:` names) holds a byte that encoding does not define: the file is in another one. The row is not sent.',
    action:
      'Set `encoding:` in the source to the encoding the file was saved in (`windows-1250`, `windows-1251`, `shift_jis`, …; docs/sources.md), or save it as UTF-8.',
  },
  CSV_MIXED_ENCODING: {
    layer: 'sources',
    meaning:
      'A row of a file guessed to be Windows-1252 holds a character written in UTF-8: the file mixes the two encodings (UTF-8 rows with Windows-1252 rows appended), and the row would land as `ZoÃ«`. The row is not sent.',
    action:
      'Save the whole file in one encoding (UTF-8), or set `encoding:` in the source to the one it is in.',
  },
  CSV_MALFORMED_QUOTE: {
    layer: 'sources',
    meaning: 'Text follows a closing quote in a value (`"abc"def`); the row is not sent.',
    action: 'Quote the whole value and write a quote inside it as two quotes ("").',
  },
  SCHEDULE_INVALID_JSON: {
    layer: 'sources',
    meaning: 'The schedule export is not valid JSON.',
    action: 'Export it again, or check the file.',
    retry: 'permanent',
  },
  SCHEDULE_EMPTY_FILE: {
    layer: 'sources',
    meaning: 'The schedule export is empty (nothing, or only blank lines).',
    action: 'Export the schedule again, or check the path.',
    retry: 'permanent',
  },
  SCHEDULE_INVALID_XML: {
    layer: 'sources',
    meaning:
      'The schedule export is not well-formed XML; the message names the line, or says the file is cut short (an interrupted download) with the elements left open.',
    action: 'Download or export it again, or fix the XML at that line.',
    retry: 'permanent',
  },
  SCHEDULE_UNEXPECTED_SHAPE: {
    layer: 'sources',
    meaning:
      'The schedule export is not of the expected format (for c3voc JSON: neither format 1, days with rooms, nor format 2, events); the first problems are listed with their paths.',
    action: 'Check that `--format` (or the job’s source) names the export this file is.',
    retry: 'permanent',
  },
  SCHEDULE_TIMEZONE_REQUIRED: {
    layer: 'sources',
    meaning: 'A session time has no UTC offset and the export names no time zone.',
    action: 'Set `timezone:` in the source to an IANA zone such as Europe/Berlin.',
    retry: 'permanent',
  },
  SCHEDULE_SESSION_TIME_MISSING: {
    layer: 'sources',
    meaning:
      'A session of the export has no start time, or no duration that can be read; the message names its id and title. The session and its speaker links are left out.',
    action: 'Give the session its time in the schedule tool and export again.',
    retry: 'permanent',
  },
  SCHEDULE_BAD_TIME: {
    layer: 'sources',
    meaning: 'A session time in the export is not an ISO 8601 date and time.',
    action: 'Fix the session in the schedule tool and export again.',
    retry: 'permanent',
  },
  SCHEDULE_SPEAKER_LIST_COLUMN: {
    layer: 'sources',
    meaning: 'The speaker list joined to a schedule export (`speakers:`) lacks a column the job names.',
    action: 'Fix the column names under `speakers:` in the job; the message lists the columns the list has.',
    retry: 'permanent',
  },
  SCHEDULE_SPEAKER_LIST_CONFLICT: {
    layer: 'sources',
    meaning:
      "A row of the speaker list joined to a schedule export gives a speaker's id to another name: the id and the name disagree, so the speaker gets no e-mail from it and is not synced.",
    action:
      'Correct the id or the name of that row in the speaker list (the message names both names and the row), then run again.',
    retry: 'permanent',
  },
  SCHEDULE_HTTP_STATUS: {
    layer: 'sources',
    meaning: 'The schedule URL answered with an error status.',
    action: 'Check the URL and that the export is public; a 5xx or 429 may pass on a later run.',
    retry: 'by status',
  },
  SCHEDULE_DOWNLOAD_FAILED: {
    layer: 'sources',
    meaning: 'The schedule export could not be downloaded (network, DNS, timeout).',
    action: 'Check the URL and the network, then run again.',
    retry: 'retryable',
  },

  // Mappings.
  EVSYNC_MAPPING: {
    layer: 'mapping',
    meaning: 'A mapping cannot be used at all.',
    action: 'Fix the mapping as the message says.',
    retry: 'permanent',
  },
  EVSYNC_MAPPING_NOT_FOUND: {
    layer: 'mapping',
    meaning: 'No shipped mapping has that name, or the mapping file does not exist.',
    action: 'Use a shipped name (the message lists them) or a path such as ./users.yaml.',
    retry: 'permanent',
  },
  MAPPING_AMBIGUOUS_COLUMN: {
    layer: 'mapping',
    meaning:
      'Several source columns read as the column a mapping names (they differ only in case or spacing).',
    action: 'Rename one in the source, or write the column in the mapping exactly as the source does.',
    retry: 'permanent',
  },
  MAPPING_MODULE_FAILED: {
    layer: 'mapping',
    meaning: "A mapping module's code threw on this row.",
    action: 'Fix the mapping module (the message carries what it threw).',
  },
  MAPPING_UNKNOWN_PARAM: {
    layer: 'mapping',
    meaning: "A mapping module's mapRow set a name that is not a param of the intent.",
    action: 'Fix the mapRow of the mapping module.',
  },
  MAPPING_DUPLICATE_PARAM: {
    layer: 'mapping',
    meaning: "A mapping module's mapRow set the same param twice, under two spellings.",
    action: 'Keep one of them in the mapRow.',
  },
  MAPPING_UNSTORABLE_TEXT: {
    layer: 'mapping',
    meaning:
      'A value holds a NUL character (U+0000) or half of a UTF-16 surrogate pair, which can be neither sent nor stored.',
    action: 'Remove the character from the source (the message gives its position); the other rows go on.',
  },
  MAPPING_COLUMN_MISSING: {
    layer: 'mapping',
    meaning:
      "The source's header has no column the mapping reads for a value the row needs (renamed or removed in the export), so every row lacks it.",
    action:
      "Rename the column in the source to the name the mapping reads, or add the source's name to the mapping's column (the message lists the source's columns).",
  },
  MAPPING_NO_KEY: {
    layer: 'mapping',
    meaning: 'The row has no value for its key (the client_id), so it cannot be tracked between runs.',
    action: 'Fill the key in the source, or map a column to it.',
  },
  MAPPING_DUPLICATE: {
    layer: 'mapping',
    meaning: 'The row repeats a key or a `unique:` value of an earlier row, under `on_duplicate: error`.',
    action: 'Remove the duplicate row, or set `on_duplicate: first` or `last` in the mapping.',
  },
  MAPPING_LOOKUP_MISS: {
    layer: 'mapping',
    meaning: "A value is not in the mapping's lookup table and the lookup has no default.",
    action: 'Add the value to the lookup table (or a default), or fix it in the source.',
  },
  MAPPING_INVALID_DATETIME: {
    layer: 'mapping',
    meaning: 'A value mapped as a date-time cannot be read as one.',
    action: 'Fix the value in the source, or set `date_order:` in the mapping.',
  },
  MAPPING_INVALID_TIMEZONE: {
    layer: 'mapping',
    meaning: "The row's time zone column holds something that is not an IANA zone.",
    action: 'Write a zone such as Europe/Berlin in that column.',
  },
  MAPPING_INVALID_OP: {
    layer: 'mapping',
    meaning: "The row's action column holds a word that is not an action.",
    action: 'Write add or remove (upsert, yes, delete and no also work).',
  },
  MAPPING_UNKNOWN_COUNTRY: {
    layer: 'mapping',
    meaning:
      'The `country` transform cannot place a value: it is no ISO 3166-1 code or country name it knows, names two countries (`Congo`), or a place without an ISO code (`Kosovo`).',
    action: 'Write the country as its ISO 3166-1 code or English short name in the source.',
  },
  MAPPING_NOT_A_HANDLE: {
    layer: 'mapping',
    meaning:
      'The `handle_url` transform reads neither a URL nor a handle (`@ada`, `x.com/ada`) in the value.',
    action:
      'Write the profile as a handle or a link in the source; the person is synced without it meanwhile.',
  },
  MAPPING_NOT_A_PHONE: {
    layer: 'mapping',
    meaning:
      'The `digits_and_plus` transform finds no phone number in the value: it has letters (`+1-800-FLOWERS`, `call me`) or no digits. The person is synced without that phone, with a warning.',
    action:
      'Write the number in digits in the source (a vanity number as its digits: +1 800 356 9377); an extension may follow as x12 or ext. 12.',
  },
  MAPPING_EXCEL_NUMBER: {
    layer: 'mapping',
    meaning:
      'A key (a client_id) or a phone number is a number in Excel’s scientific notation (`2.36021E+11`): Excel rounded it when the file was opened and saved, so its last digits are lost. A key fails the row (people would share it); a phone number is left out with a warning.',
    action:
      'Export the file again and sync it without opening it in Excel, or import it into Excel with the column formatted as text before saving.',
  },
  MAPPING_FIELD_LEFT_OUT: {
    layer: 'mapping',
    meaning:
      'A warning: an optional field of the row failed its rule and was left out; the person was synced without it.',
    action:
      'Fix the value in the source to have it sent, or mark the field `required: true` in the mapping to make such rows fail instead.',
  },
  MAPPING_SCHEDULE_HELD_BACK: {
    layer: 'mapping',
    meaning:
      "A user's schedule is not sent because one of its rows is invalid: sent alone, the rest would drop it.",
    action: 'Fix the invalid row named in the message, and run again.',
  },
  SKIPPED: {
    layer: 'mapping',
    meaning: '`evsync validate`: the row is left out on purpose by a `when:` condition or a module’s skip.',
    action: 'Nothing, unless the row should be sent: then change the condition.',
  },
  DUPLICATE_FIRST: {
    layer: 'mapping',
    meaning:
      '`evsync validate`: the row repeats an earlier row under `on_duplicate: first`; it will not be sent.',
    action: 'Nothing, unless this row should win: then remove the earlier one.',
  },
  DUPLICATE_LAST: {
    layer: 'mapping',
    meaning:
      '`evsync validate`: the row repeats an earlier row under `on_duplicate: last`; it replaces that row.',
    action: 'Nothing, unless the earlier row should win: then remove this one.',
  },

  // The platform's write-param rules, checked before anything is sent.
  REQUIRED: {
    layer: 'write-params',
    meaning: 'A param the platform requires is missing or blank.',
    action: 'Fill the column in the source, or map one to the param.',
  },
  TOO_LONG: {
    layer: 'write-params',
    meaning: 'A value is longer than the platform allows for that param.',
    action: 'Shorten it in the source, or cut it with a transform in the mapping.',
  },
  CONTROL_CHARACTER: {
    layer: 'write-params',
    meaning:
      'A one-line text (a name, a salutation, a position, a company) holds a control character, or a character that turns the text’s direction (U+202A–U+202E, U+2066–U+2069): on a badge or a list it shows as garbage, or makes the text read as another.',
    action:
      'Remove it from the source (the message says which and where). An optional field is left out and the person is sent without it; a name fails the row.',
  },
  INVALID_VALUE: {
    layer: 'write-params',
    meaning: 'A value is not one of those the platform accepts for that param.',
    action: 'Use one of the values the message lists, or translate it with a lookup in the mapping.',
  },
  INVALID_EMAIL: {
    layer: 'write-params',
    meaning: 'A value is not an e-mail address.',
    action: 'Fix the address in the source.',
  },
  CONFIRMATION_MISMATCH: {
    layer: 'write-params',
    meaning: 'A password and its confirmation differ (neither is shown).',
    action: 'Make them equal in the source, or map only one of them.',
  },
  INVALID_COUNTRY_CODE: {
    layer: 'write-params',
    meaning: 'A country is not an ISO 3166-1 alpha-2 code in upper case.',
    action:
      'Write the 2-letter code in upper case, e.g. DE or US (a `country_code` transform converts names).',
  },
  INVALID_INDEX: {
    layer: 'write-params',
    meaning: 'A list param has an index that is not 0, 1, 2…',
    action: 'Fix the param name in the mapping, e.g. `event_client_ids[0]`.',
  },
  INVALID_JSON_OBJECT: {
    layer: 'write-params',
    meaning: 'A value the platform reads as a JSON object is not one.',
    action: 'Write a JSON object such as {"diet":"vegetarian"} in the source.',
  },
  INVALID_XHTML: {
    layer: 'write-params',
    meaning: 'A rich-text value is not well-formed XHTML; the message says where.',
    action: 'Fix the markup in the source, or convert it with an html transform in the mapping.',
  },
  INVALID_DATETIME: {
    layer: 'write-params',
    meaning: 'A date-time param is not in the form the platform reads.',
    action: 'Map the column through a datetime transform, or fix the value in the source.',
  },
  FINISH_BEFORE_START: {
    layer: 'write-params',
    meaning: 'An event finishes before it starts.',
    action: 'Fix the start or the finish in the source.',
  },
  INVALID_INTEGER: {
    layer: 'write-params',
    meaning: 'A value is not the whole number the param needs.',
    action: 'Fix the value in the source.',
  },
  INVALID_URL: {
    layer: 'write-params',
    meaning: 'A value is not an http(s) URL.',
    action: 'Write a full URL such as https://example.com/ in the source.',
  },
  INVALID_COORDINATES: {
    layer: 'write-params',
    meaning: 'A check-in location is not "<longitude>,<latitude>" in decimal degrees.',
    action: 'Fix the longitude and latitude in the source.',
  },
  HTML_NOT_ALLOWED: {
    layer: 'write-params',
    meaning: 'A plain-text param holds HTML markup.',
    action: 'Remove the markup in the source, or strip it with a transform in the mapping.',
  },
  MUTUALLY_EXCLUSIVE: {
    layer: 'write-params',
    meaning: 'Two params that cannot go together are both given.',
    action: 'Give only one of them (the message names both).',
  },
  ONE_REQUIRED: {
    layer: 'write-params',
    meaning: 'None of a set of params, one of which is required, is given.',
    action: 'Give one of the params the message lists.',
  },
  PARTIAL_ADDRESS: {
    layer: 'write-params',
    meaning: 'A location address gives some parts but not those the platform requires with them.',
    action: 'Complete the address in the source, or leave all of it out.',
  },
  PASSWORD_NOT_ALLOWED: {
    layer: 'write-params',
    meaning: 'An update carries a password param: it would change the stored password.',
    action: 'Leave the password out of updates (it is still sent on create).',
  },
  UNKNOWN_PARAM: {
    layer: 'write-params',
    meaning: 'A param is not one of this operation: the platform would ignore it.',
    action: 'Fix the param name in the mapping (the message may suggest the right one).',
  },

  // A run and its rows.
  EVSYNC_ROW_INVALID: {
    layer: 'sync',
    meaning: 'The row failed validation (a row with a more specific problem carries that code instead).',
    action: 'Fix the row as the message says; `evsync validate` lists every problem.',
  },
  EVSYNC_ROW_SKIPPED: {
    layer: 'sync',
    meaning: 'The row was left out on purpose by a `when:` condition or a mapping module’s skip.',
    action: 'Nothing, unless the row should be sent: then change the condition.',
  },
  EVSYNC_ROW_INCOMPLETE: {
    layer: 'sync',
    meaning:
      'The row was left out because a value it needs is empty (a `present: true` condition): data lost, so the run ends with exit code 1.',
    action:
      'Supply the value (for a schedule export’s speakers: the e-mails, from a speaker list joined with `speakers:`), or change the condition.',
  },
  EVSYNC_ACCOUNT_OF_ANOTHER: {
    layer: 'sync',
    meaning:
      'The platform user this row found (by its e-mail, or attached by 203) is another key\'s account, or an account made on the platform without a client_id, and its person has another name: the row\'s data is not sent to it (docs/sync-engine.md, "Who is who").',
    action:
      'If both rows are one person, make the names agree in the source; if not, give this person their own e-mail. The message names both keys and both names.',
    retry: 'permanent',
  },
  EVSYNC_KEY_NOW_ANOTHER_PERSON: {
    layer: 'sync',
    meaning:
      'This row’s client_id was last synced as another person (another name and another e-mail, or a name with no word in common under an e-mail an order shares): an update would turn that person’s platform account into this one’s, so nothing was sent (docs/sync-engine.md, "Who is who").',
    action:
      'If it is another person (a ticket handed on, or keys that follow the rows’ order, such as a pretix list without its secrets), give them a client_id of their own. If it is the same person with a new name and a new e-mail, change one of them in this run and the other in the next.',
    retry: 'permanent',
  },
  EVSYNC_KEY_OF_REMOVED_PERSON: {
    layer: 'sync',
    meaning:
      'This row’s client_id was last sent as another person, whom a run removed from this conference since (a mirror delete: a ticket unassigned, refunded or left out of the export). The platform keeps the client_id on that person’s account, so a create would put them back in the conference (203) and never make this person an account: nothing was sent (docs/sync-engine.md, "Who is who").',
    action:
      'Give this person a client_id of their own (Tito: a new ticket, whose reference is new, rather than the old ticket re-assigned). If it is the earlier person with a new name and a new e-mail, change one of them in this run and the other in the next.',
    retry: 'permanent',
  },
  EVSYNC_ONE_KEY_TWO_PEOPLE: {
    layer: 'sync',
    meaning:
      'Steps of the job give one client_id to different people (different e-mails and names): no row of those people is sent, so that nobody is merged into another (docs/sync-engine.md, "Who is who").',
    action:
      'Give each person their own client_id in the sources (or the same e-mail, if they are one person); the message names every row involved.',
    retry: 'permanent',
  },
  EVSYNC_MERGED_PERSON_SPLIT: {
    layer: 'sync',
    meaning:
      'Client_ids that an earlier run merged into one platform user (one person in several steps) now have rows of different people (different e-mails): each would overwrite the other on that one account, so no row of theirs is sent (docs/sync-engine.md, "One person, many sources").',
    action:
      'If they are still one person, give their rows the same e-mail in every source (a new address in all of them); if a key now names someone else, give that person a client_id of their own. The message names every row involved.',
    retry: 'permanent',
  },
  MAPPING_SHARED_EMAIL: {
    layer: 'mapping',
    meaning:
      'Rows of one step give the same e-mail to people of different names (ticket holders of one order): the platform keeps one user per e-mail.',
    action:
      'Put each holder\'s own e-mail in the source, or say in the mapping what to do: `on_shared_email: first`, `skip` or `suffix` (docs/mapping.md, "Shared e-mails").',
    retry: 'permanent',
  },
  MAPPING_SHARED_KEY: {
    layer: 'mapping',
    meaning:
      "A user row repeats an earlier row's key (client_id) under another name and another e-mail: one id for two people. The earlier row keeps it; this one is not sent, whatever `on_duplicate` says.",
    action:
      'Give each person their own id in the source (the ticket or attendee id, not the order\'s), or key the mapping on a column that tells them apart (docs/mapping.md, "Keys, duplicates and dependencies").',
    retry: 'permanent',
  },
  EVSYNC_ERASED: {
    layer: 'sync',
    meaning:
      'The row names a person erased with `evsync forget` in this conference: it is suppressed, not sent, and nothing of it is kept.',
    action:
      'Nothing: remove the person from the source when you can. If the erasure was a mistake, `evsync forget --undo` brings them back on the next run (docs/privacy.md).',
  },
  EVSYNC_ERASED_KEY_REUSED: {
    layer: 'sync',
    meaning:
      'A user row gives the client_id of a person erased with `evsync forget`, with an e-mail the erasure does not hold: another person under a reused key, or the erased person with a new address. It is not sent, and nothing of it is kept but its place.',
    action:
      'If it is another person (a ticket handed on, a list keyed by the rows’ order), give them a client_id of their own in the source. If it is the erased person, remove the row from the source.',
    retry: 'permanent',
  },
  EVSYNC_ERASURE_RUN_IN_FLIGHT: {
    layer: 'sync',
    meaning:
      'A run of the conference was being sent when `forget` was asked: its process holds the person’s rows in memory and could send them again after the erasure, so nothing was removed.',
    action:
      'Run `evsync forget` again once the run has ended (`evsync status`), or stop it first (Ctrl-C): a resume after the erasure does not send the person.',
    retry: 'permanent',
  },
  EVSYNC_ERASURE_IDENTITY: {
    layer: 'sync',
    meaning:
      'The platform and the ledger disagree on who the person to erase is (the user the ledger knows by id has another e-mail), or the client_id given named two people in the ledger (a ticket handed on, a key reused): nothing was removed.',
    action:
      'Look at the platform user and the ledger (`evsync report`), and run `forget` with the client_id the platform user really has, or with the e-mail of the person to forget.',
    retry: 'permanent',
  },
  EVSYNC_DUPLICATE_ROW: {
    layer: 'sync',
    meaning:
      'The row repeats another under `on_duplicate: first` or `last` and was left out or replaced, or a later step of the job has a row of its key, which took its place.',
    action:
      'Nothing, unless the other row should win: then remove the one you do not want (or, across steps, give the rows different client_ids if both should be sent).',
  },
  EVSYNC_DUPLICATE_KEY: {
    layer: 'sync',
    meaning: 'An intent with the same kind and key came twice in one run; the first one is synced.',
    action: 'Remove or fix the duplicate row.',
  },
  EVSYNC_PARENT_MISSING: {
    layer: 'sync',
    meaning:
      'A dependent (speaker link, schedule, RSVP, contact, check-in) was skipped: its user or event failed or is unknown.',
    action:
      'Fix the parent row the message names; `evsync resume` or `evsync retry` sends the dependent then.',
  },
  EVSYNC_PARENT_HELD: {
    layer: 'sync',
    meaning:
      'A dependent (speaker link, schedule, RSVP, contact, check-in) was skipped: its user’s key is held, because a run (the message names it and its job) refused that user as now another person than the one its platform account is. Sent, it would reach the other person’s account (docs/sync-engine.md, "Who is who").',
    action:
      'Fix the user row in the job the message names, or give the new person a client_id of their own; the hold ends when the key’s user syncs again (or is unchanged), and the next run of this job sends the dependent.',
  },
  EVSYNC_PARENT_SKIPPED: {
    layer: 'sync',
    meaning:
      'A dependent was skipped on purpose: its user or event was filtered out in this run by a `when:` condition. Not a failure: the run’s exit code stays 0.',
    action: 'Nothing, unless the parent should be sent: then change the condition that filters it.',
  },
  EVSYNC_PARENT_DELETED: {
    layer: 'sync',
    meaning:
      'A dependent names a user or event that an earlier run deleted (mirror mode) or retired; the message names that run and its date. Not a failure.',
    action:
      'Nothing, unless the parent is back: then add its row again. Drop the dependent from its source to silence it.',
  },
  EVSYNC_SCHEDULE_PICKS_LEFT_OUT: {
    layer: 'sync',
    meaning:
      'A warning on a schedule that was sent: some of its events were left out because they were deleted by a run or filtered out on purpose; the message names each and why.',
    action:
      'Nothing, unless those events should be there: then add them back, or drop the picks from the schedule export.',
  },
  EVSYNC_SCHEDULE_PICKS_MISSING: {
    layer: 'sync',
    meaning:
      'Some events of a schedule are missing: they failed in this run, the platform refused them when last sent (422) and nothing synced them since, or they are in no source; data lost, so the run ends with exit code 1. A warning on a schedule sent with the events that are there; a skipped schedule was not sent again, as the platform has that list already.',
    action:
      'Fix or add the events the message names (a refusal: correct what the platform names, in the source or on the platform); the next run sends the schedule with them.',
  },
  EVSYNC_SYNCED_SINCE: {
    layer: 'sync',
    meaning: 'Not sent by a resume or retry: a later run of the job has synced it since, with newer content.',
    action: 'Nothing: the later run holds the newer state.',
  },
  EVSYNC_SECRET_NOT_RESTORED: {
    layer: 'sync',
    meaning:
      'Not sent by a resume or retry: its password could not be read again from the source as the run planned it.',
    action: 'Run the job again: it sends the row as the source has it now.',
  },
  EVSYNC_CHECK_IN_OUTCOME_UNKNOWN: {
    layer: 'sync',
    meaning: 'The answer to a check-in was lost; it may have been recorded, so it was not sent again.',
    action:
      "`evsync retry RUN` looks up the key owner's own check-ins (GET /check_in/my) and posts only those missing; one in another user's name cannot be looked up: check the platform, and if it is missing, post it with `evsync retry RUN --client-id KEY --resend-unknown`.",
    retry: 'permanent',
  },
  EVSYNC_CHECK_IN_HELD_BACK: {
    layer: 'sync',
    meaning: 'A check-in is held back because an earlier run lost the answer to it.',
    action:
      'Check the platform: if it is missing, send it with the `evsync retry` the message gives; else leave it.',
  },
  EVSYNC_CHECK_IN_POSTED_SINCE: {
    layer: 'sync',
    meaning: 'Not sent by a resume or retry: another run has posted this check-in since.',
    action: 'Nothing: the check-in is on the platform.',
  },
  EVSYNC_CHECK_IN_UNCHANGEABLE: {
    layer: 'sync',
    meaning:
      'A check-in posted in an earlier run changed in the source; the platform cannot change a check-in.',
    action: 'Restore the row as it was, or give it a new check_in_id to post it as a new check-in.',
    retry: 'permanent',
  },
  EVSYNC_CONTACT_UNRESOLVED: {
    layer: 'sync',
    meaning: 'A contact names a user that has no platform id.',
    action: 'Sync that user first, or give user_id or exhibitor_id.',
    retry: 'permanent',
  },
  EVSYNC_SPEAKER_LINK_STUCK: {
    layer: 'sync',
    meaning: 'The platform still reports a speaker link after it was removed to change its type.',
    action: 'Check the link on the platform, and its type against the source.',
    retry: 'permanent',
  },
  EVSYNC_INTERNAL: {
    layer: 'sync',
    meaning: 'evsync itself failed on this intent (a bug, not the data).',
    action: 'Report it with the message; `evsync retry RUN` sends the intent again.',
  },
  EVSYNC_QUEUE_UNREACHABLE: {
    layer: 'sync',
    meaning: 'Distributed mode: the Redis that REDIS_URL names cannot be reached, so nothing was enqueued.',
    action:
      'Start Redis or fix REDIS_URL, then run the command again; unset REDIS_URL to run in one process.',
    retry: 'retryable',
  },
  EVSYNC_WORKER_GAVE_UP: {
    layer: 'sync',
    meaning:
      'Distributed mode: the workers could not finish this intent after every try (the ledger or Redis failed under them, or the platform kept answering 429).',
    action: 'Read the message; fix the cause, then `evsync retry RUN` sends the intent again.',
    retry: 'permanent',
  },
  EVSYNC_DELETE_THRESHOLD: {
    layer: 'sync',
    meaning: 'Mirror mode would delete more than `delete_threshold` allows; nothing was sent.',
    action: 'Check that the source is complete; if the deletes are intended, run again with --force.',
    retry: 'permanent',
  },
  EVSYNC_TOO_FEW_ROWS: {
    layer: 'sync',
    meaning:
      'A step’s source yielded fewer rows than its `min_rows` (a count, or a percentage of its rows in the job’s last completed run); nothing was sent.',
    action:
      'Check the export or query the message names (a truncated or empty export); if so few rows are right, run again with --force.',
    retry: 'permanent',
  },
  EVSYNC_ABORTED: {
    layer: 'sync',
    meaning: 'The run stopped before its end (a signal, or the platform down for many intents in a row).',
    action: 'Fix the cause the message names, then finish the run with `evsync resume RUN`.',
    retry: 'permanent',
  },
  EVSYNC_AUDIT_READ_FAILED: {
    layer: 'sync',
    meaning:
      '`evsync audit` could not read the platform back (unreachable, key refused, or an answer it cannot read): it compared nothing.',
    action: 'Fix the cause the message names (`evsync ping` tests the key), then audit again.',
    retry: 'by status',
  },

  // The ledger.
  EVSYNC_LEDGER_UNAVAILABLE: {
    layer: 'ledger',
    meaning: 'The ledger cannot be reached or opened.',
    action: 'Check DATABASE_URL and that its server is up, or that EVSYNC_DATA_DIR is writable.',
    retry: 'retryable',
  },
  EVSYNC_LEDGER_BUSY: {
    layer: 'ledger',
    meaning:
      "A moment's lock of the embedded ledger's folder (its server's start, the takeover of an earlier release's ledger) is held by a process that does not let go (the message names its pid).",
    action: 'Try again when that process has ended, or stop it.',
    retry: 'permanent',
  },
  EVSYNC_CONFERENCE_UNSERVED: {
    layer: 'sync',
    meaning:
      "Distributed mode: no worker had credentials for the run's conference (the job's platform variables), so the intent was not sent; or, logged by the run, no connected worker serves its conference key's lane, and the run was cut off.",
    action:
      "Start an `evsync worker` whose environment sets the job's platform variables for that conference, then `evsync retry RUN` (a failed intent) or `evsync resume RUN` (a run cut off).",
    retry: 'permanent',
  },
  EVSYNC_JOB_BUSY: {
    layer: 'ledger',
    meaning:
      'Another evsync process, on this machine or another, runs, resumes or retries this job (the message names its run, pid and host).',
    action: 'Wait for it with `--wait`, or stop that process; a killed process lets go of the job at once.',
    retry: 'permanent',
  },
  EVSYNC_LEDGER_TOO_NEW: {
    layer: 'ledger',
    meaning: 'The ledger was migrated by a newer evsync than this one.',
    action: 'Upgrade evsync, or point DATABASE_URL or EVSYNC_DATA_DIR at another ledger.',
    retry: 'permanent',
  },
  EVSYNC_LEDGER_MIGRATION: {
    layer: 'ledger',
    meaning: 'A migration of the ledger failed and was rolled back.',
    action: 'Fix what the message names (often database permissions), then run again.',
    retry: 'permanent',
  },
  EVSYNC_LEDGER_SCHEMA: {
    layer: 'ledger',
    meaning: 'The ledger’s PostgreSQL schema name is not a plain lowercase identifier.',
    action: 'Use a name of lowercase letters, digits and underscores.',
    retry: 'permanent',
  },
  EVSYNC_LEDGER_UNKNOWN_RUN: {
    layer: 'ledger',
    meaning: 'No run in the ledger has that id.',
    action: '`evsync runs` lists the runs.',
    retry: 'permanent',
  },
  EVSYNC_LEDGER_WRITE: {
    layer: 'ledger',
    meaning: 'Recording results in the ledger failed; the message counts the results not written.',
    action: 'Check the database (space, connection), then finish the run with `evsync resume RUN`.',
    retry: 'retryable',
  },
  EVSYNC_LEDGER_CLOSED: {
    layer: 'ledger',
    meaning: 'The ledger was used after it was closed (a bug in evsync).',
    action: 'Report it with the command that showed it.',
    retry: 'permanent',
  },
  EVSYNC_RUN_BUSY: {
    layer: 'ledger',
    meaning: 'Another evsync process is working on this run (its run, a resume or a retry).',
    action: 'Wait for it to end (`evsync runs`), then try again.',
    retry: 'permanent',
  },
  EVSYNC_RUN_SUPERSEDED: {
    layer: 'sync',
    meaning:
      'Not sent by a resume: a later run of the same job read the sources whole and completed since this run stopped, so its remaining plan is stale (it would bring back rows taken out of the source since).',
    action: 'Nothing: the job’s next run sends what the sources hold.',
  },
  EVSYNC_RUN_PRUNED: {
    layer: 'sync',
    meaning:
      'The run’s per-row data was removed by `evsync prune` (its retention), so it cannot be resumed or retried; its counts are kept.',
    action:
      'Run the job again: it sends what changed, and what failed since is sent again. `evsync runs` marks pruned runs.',
    retry: 'permanent',
  },
  EVSYNC_NOTHING_TO_RETRY: {
    layer: 'sync',
    meaning: 'A retry found no failed intent of the run matching its filter: no run was started.',
    action: 'Widen the filter, or fix rows that failed in the source and run the job again.',
    retry: 'permanent',
  },
  EVSYNC_RETRY_UNFINISHED_RUN: {
    layer: 'sync',
    meaning:
      'A retry of a run that stopped before its end (aborted, interrupted, or cut off) with intents it never sent, or whose sources it never read to the end: a retry sends only failed rows, and would leave the rest unsent while its run made the job look synced. No run was started.',
    action:
      '`evsync resume RUN` finishes the run (the dashboard’s Resume), then `evsync retry RUN` sends the rows that still fail. When its plan was cut short, run the job again.',
    retry: 'permanent',
  },
  EVSYNC_RETRY_ROW_NOT_FOUND: {
    layer: 'sync',
    meaning:
      'A row that failed before anything was sent, which a retry cannot find again in the source: it had no client_id (it is named by its place, `@file:row`), or it repeated another row’s key. The retry lists it as failed and exits 1.',
    action:
      'Fix the row in the source (give it a client_id), then run the job again (`evsync run JOB_FILE`, or the dashboard’s “Run the job again”): a run sends it with whatever else changed.',
  },
  EVSYNC_RETRY_ROW_GONE: {
    layer: 'sync',
    meaning:
      'Not sent by a retry: the row failed in the run retried (the platform refused it, or it failed the mapping), and the job’s source no longer has it (by its client_id). A retry sends failed rows as the source has them now.',
    action:
      'Nothing, if the row was taken out on purpose. If its client_id changed in the source, the job’s next run sends it under the new one.',
  },
  EVSYNC_RETRY_ROW_MERGED: {
    layer: 'sync',
    meaning:
      'Not sent on its own by a retry: the user row failed in the run retried, and the job’s sources now make it one person with another key’s row (docs/sync-engine.md, "One person, many sources"). The retry sends that user, with this key among its client_ids.',
    action: 'Nothing: the person’s user, under the other key, carries this row.',
  },
  EVSYNC_RUN_NO_JOB_FILE: {
    layer: 'sync',
    meaning: 'The run does not name the job file it was run from, so it cannot be run again from its source.',
    action: 'Run the job with `evsync run JOB_FILE`.',
    retry: 'permanent',
  },
  EVSYNC_DASHBOARD_LOGIN: {
    layer: 'cli',
    meaning: 'The dashboard was asked for a page or an action without a session or a valid Bearer token.',
    action:
      'Log in with the token (EVSYNC_DASHBOARD_TOKEN, or the login URL the dashboard printed), or send `Authorization: Bearer TOKEN`.',
    retry: 'permanent',
  },
  EVSYNC_DASHBOARD_CSRF: {
    layer: 'cli',
    meaning: 'A dashboard action came through a browser session without its CSRF token.',
    action: 'Use the button on the dashboard page (reload it first); scripts send a Bearer token instead.',
    retry: 'permanent',
  },
  EVSYNC_DASHBOARD_LOCKED: {
    layer: 'cli',
    meaning:
      'Too many wrong dashboard tokens came from this address (or from all addresses together): tokens are not even compared until the lockout ends.',
    action:
      'Wait the seconds `Retry-After` says, then log in with the right token; a session already open goes on working. The dashboard log names the address the wrong tokens came from.',
    retry: 'retryable',
  },
  EVSYNC_DASHBOARD_BODY_TOO_LARGE: {
    layer: 'cli',
    meaning: 'A request to the dashboard carried a body larger than its route takes (a few KB for a form).',
    action: 'Send the form or JSON fields the route names, nothing else.',
    retry: 'permanent',
  },

  // Calls to the platform.
  EVSYNC_PLATFORM_BAD_REQUEST: {
    layer: 'platform',
    meaning: 'The platform answered 400: the request was malformed.',
    action: 'Check the params the message names; report it if the mapping looks right.',
    retry: 'permanent',
  },
  EVSYNC_PLATFORM_UNAUTHORIZED: {
    layer: 'platform',
    meaning: 'The platform answered 401: it refused the signature.',
    action:
      'Check EVSYNC_KEY_ID and EVSYNC_SIGNING_KEY (`evsync ping` tests them); `evsync resume RUN` sends again.',
    retry: 'permanent',
  },
  EVSYNC_PLATFORM_FORBIDDEN: {
    layer: 'platform',
    meaning: 'The platform answered 403: the key may not do this.',
    action: "Ask for the permission; a password reset of the key's owner revokes its permissions.",
    retry: 'permanent',
  },
  EVSYNC_PLATFORM_NOT_FOUND: {
    layer: 'platform',
    meaning: 'The platform answered 404: no such object or path.',
    action: 'Check the id or client_id, and EVSYNC_BASE_URL.',
    retry: 'permanent',
  },
  EVSYNC_PLATFORM_METHOD_NOT_ALLOWED: {
    layer: 'platform',
    meaning: 'The platform answered 405: it does not accept this method on this path.',
    action: "Check that EVSYNC_BASE_URL is the conference's host.",
    retry: 'permanent',
  },
  EVSYNC_PLATFORM_NOT_ACCEPTABLE: {
    layer: 'platform',
    meaning: 'The platform answered 406: it refused the requested format.',
    action: "Check that EVSYNC_BASE_URL is the conference's host.",
    retry: 'permanent',
  },
  EVSYNC_PLATFORM_INVALID: {
    layer: 'platform',
    meaning: 'The platform answered 422: it rejected the data; the message lists its reasons per param.',
    action:
      'Fix the values in the source or the mapping, then run the job again (`evsync retry RUN` sends the row as it was planned: for a cause fixed on the platform, such as an e-mail another user held).',
    retry: 'permanent',
  },
  EVSYNC_PLATFORM_RATE_LIMITED: {
    layer: 'platform',
    meaning: 'The platform answered 429 after every try: rate limited.',
    action: "Lower the job's rate, or run later.",
    retry: 'retryable',
  },
  EVSYNC_PLATFORM_SERVER: {
    layer: 'platform',
    meaning: 'The platform answered 5xx after every try: it failed.',
    action:
      'Many in a row stop the run: `evsync resume RUN` once `evsync ping` answers. A few: `evsync retry RUN`.',
    retry: 'retryable',
  },
  EVSYNC_PLATFORM_HTTP: {
    layer: 'platform',
    meaning: 'The platform answered a status evsync does not expect (a redirect, or another 4xx).',
    action: 'Check EVSYNC_BASE_URL: https and the conference host; evsync does not follow redirects.',
    retry: 'permanent',
  },
  EVSYNC_PLATFORM_UNREACHABLE: {
    layer: 'platform',
    meaning: 'The platform could not be reached (DNS, refused, connect timeout): nothing was sent.',
    action: 'Check EVSYNC_BASE_URL and the network; `evsync resume RUN` sends what is left.',
    retry: 'retryable',
  },
  EVSYNC_PLATFORM_OUTCOME_UNKNOWN: {
    layer: 'platform',
    meaning: 'The request was sent but its answer was lost; the platform may have applied it.',
    action: 'Nothing for an upsert: evsync looks the object up before sending it again.',
    retry: 'retryable',
  },
  EVSYNC_PLATFORM_BAD_RESPONSE: {
    layer: 'platform',
    meaning: 'The platform answered success with a body that is not the shape the API describes.',
    action: "Check that EVSYNC_BASE_URL is the platform's API, not a proxy or a login page.",
    retry: 'permanent',
  },
  EVSYNC_PLATFORM_CLOSED: {
    layer: 'platform',
    meaning: 'Not sent: the platform client was closed or the run was stopping.',
    action: '`evsync resume RUN` sends it.',
    retry: 'permanent',
  },
  EVSYNC_PLATFORM_WRITE_STALE: {
    layer: 'platform',
    meaning:
      'Not sent: a distributed worker no longer held the job it was writing for (it was paused past its lock, and another worker took the job), or a newer run had recorded the key since.',
    action: 'Nothing to do: the worker that holds the job, or the newer run, sends the current content.',
    retry: 'permanent',
  },
  EVSYNC_PLATFORM_PASSWORD_IN_UPDATE: {
    layer: 'platform',
    meaning: 'An update carried a password param; it would change the stored password, so it was not sent.',
    action: 'Leave passwords out of updates.',
    retry: 'permanent',
  },

  // The sandbox.
  EVSYNC_SANDBOX_LISTEN: {
    layer: 'sandbox',
    meaning: 'The sandbox cannot listen on the address given (in use, or not allowed).',
    action: 'Choose another with --port or --host.',
    retry: 'permanent',
  },
  EVSYNC_SANDBOX_FAULTS: {
    layer: 'sandbox',
    meaning: 'The `--faults` spec cannot be read.',
    action: 'Write it like "latency=5-20,503=0.05,commit-drop=2x".',
    retry: 'permanent',
  },
  EVSYNC_SANDBOX_STATE: {
    layer: 'sandbox',
    meaning: 'The sandbox state file cannot be read, or is not a state file.',
    action: 'Give a file the sandbox saved (`--seed` takes seed files).',
    retry: 'permanent',
  },
  EVSYNC_SANDBOX_SEED: {
    layer: 'sandbox',
    meaning: 'The sandbox seed file cannot be read.',
    action: 'Check the path and its permissions.',
    retry: 'permanent',
  },
  EVSYNC_SANDBOX_HTTP: {
    layer: 'sandbox',
    meaning:
      'Inside the sandbox: a request is answered with an error status; the caller sees the status and body.',
    action: 'Nothing: the status and its body are the answer.',
    retry: 'by status',
  },
} as const satisfies Record<string, CodeInfo>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/** The codes raised by one layer, e.g. `CodeOf<'write-params'>`. */
export type CodeOf<L extends CodeLayer> = {
  [K in ErrorCode]: (typeof ERROR_CATALOG)[K]['layer'] extends L ? K : never;
}[ErrorCode];

/** Each code by its own name: `CODE.CSV_RAGGED_ROW`, so that a typo fails the typecheck. */
export const CODE = Object.fromEntries(Object.keys(ERROR_CATALOG).map((code) => [code, code])) as {
  readonly [K in ErrorCode]: K;
};

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CATALOG, value);
}
