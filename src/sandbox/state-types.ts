/**
 * The sandbox's records. Times are kept as epoch microseconds so that responses can show
 * the microsecond ISO strings of spec §2.1 without losing precision.
 */

export interface PhoneRecord {
  work_number: string | null;
  cell_number: string | null;
  fax_number: string | null;
}

export interface AddressRecord {
  street: string | null;
  street2: string | null;
  city: string | null;
  state: string | null;
  postal_code: string | null;
  country_code: string | null;
}

export interface UserRecord {
  id: number;
  /** False for a user who exists platform-wide only (another conference): create answers 203. */
  inConference: boolean;
  clientIds: string[];
  salutation: string | null;
  firstName: string;
  lastName: string;
  email: string;
  /** Only whether one was set: the sandbox never stores or shows a password. */
  hasPassword: boolean;
  membership: string;
  currentState: string;
  accountId: number;
  accountName: string | null;
  employeeId: number;
  position: string | null;
  companyName: string | null;
  itemId: number;
  iconId: number | null;
  iconUri: string | null;
  tags: string[];
  phones: PhoneRecord[];
  bio: string | null;
  webLinks: Record<string, string>;
  customData: Record<string, unknown>;
  preferences: Record<string, boolean>;
  addresses: AddressRecord[];
  createdOn: number;
  updatedOn: number;
}

export interface SpeakerRecord {
  userId: number;
  type: string;
}

export interface EventRecord {
  id: number;
  clientIds: string[];
  name: string;
  content: string;
  start: number;
  finish: number;
  parentId: number | null;
  trackId: number | null;
  maxAttendees: number | null;
  tags: string[];
  locationId: number | null;
  exhibitorId: number | null;
  speakers: SpeakerRecord[];
  itemId: number;
  updatedOn: number;
}

export interface TrackRecord {
  id: number;
  name: string;
  position: number;
  color: string;
}

/** A place: a check-in location, or an event's location. */
export interface FeatureRecord {
  id: number;
  name: string;
  itemId: number;
  lat: number | null;
  lng: number | null;
  address: AddressRecord | null;
}

export interface ExhibitorRecord {
  id: number;
  name: string;
  clientIds: string[];
}

export interface ContactRecord {
  kind: 'user' | 'exhibitor';
  id: number;
}

export type CheckInPlace =
  | { kind: 'conference' }
  | { kind: 'center'; lat: number; lng: number; featureId: number }
  | { kind: 'exhibitor' | 'user' | 'feature' | 'event'; id: number };

export interface CheckInRecord {
  id: number;
  userId: number;
  mode: 1 | 2;
  displayValue: string | null;
  place: CheckInPlace;
  createdAt: number;
}

/** The whole conference, as saved to and loaded from a `--state` file. */
export interface StateSnapshot {
  version: 1;
  nextId: number;
  adminUserId: number;
  /** The place of a chatter post without a location item (§4.1 rule 1). */
  conferenceFeatureId: number;
  conferenceName: string;
  users: UserRecord[];
  events: EventRecord[];
  tracks: TrackRecord[];
  features: FeatureRecord[];
  exhibitors: ExhibitorRecord[];
  tags: Record<string, number>;
  /** user id → event ids in the user's schedule, in the order they were added. */
  schedules: Record<string, number[]>;
  /** user id → the user's contacts. */
  contacts: Record<string, ContactRecord[]>;
  checkIns: CheckInRecord[];
}
