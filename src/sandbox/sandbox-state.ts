import { nowMicros } from './clock.js';
import type {
  CheckInRecord,
  ContactRecord,
  EventRecord,
  ExhibitorRecord,
  FeatureRecord,
  StateSnapshot,
  TrackRecord,
  UserRecord,
} from './state-types.js';

/**
 * The conference in memory. One id counter serves every kind of record, so an id that is
 * valid for a user is never valid for an event: a connector that mixes them up gets a 404
 * rather than silently touching the wrong object. Lookups by client_id and e-mail are
 * indexed because creates check them on every call.
 */
export class SandboxState {
  readonly users = new Map<number, UserRecord>();
  readonly events = new Map<number, EventRecord>();
  readonly tracks = new Map<number, TrackRecord>();
  readonly features = new Map<number, FeatureRecord>();
  readonly exhibitors = new Map<number, ExhibitorRecord>();
  readonly tags = new Map<string, number>();
  readonly schedules = new Map<number, number[]>();
  readonly contacts = new Map<number, ContactRecord[]>();
  readonly checkIns = new Map<number, CheckInRecord>();
  adminUserId = 0;
  conferenceFeatureId = 0;
  conferenceName = 'Sandbox Conference';
  private lastId = 0;
  private readonly userByClient = new Map<string, number>();
  private readonly userByMail = new Map<string, number>();
  private readonly eventByClient = new Map<string, number>();
  /** Called after every change, e.g. to save the state file. */
  onChange: () => void = () => {};

  nextId(): number {
    this.lastId += 1;
    return this.lastId;
  }

  changed(): void {
    this.onChange();
  }

  userByClientId(clientId: string): UserRecord | undefined {
    const id = this.userByClient.get(clientId);
    return id === undefined ? undefined : this.users.get(id);
  }

  userByEmail(email: string): UserRecord | undefined {
    const id = this.userByMail.get(email.toLowerCase());
    return id === undefined ? undefined : this.users.get(id);
  }

  eventByClientId(clientId: string): EventRecord | undefined {
    const id = this.eventByClient.get(clientId);
    return id === undefined ? undefined : this.events.get(id);
  }

  exhibitorByClientId(clientId: string): ExhibitorRecord | undefined {
    for (const exhibitor of this.exhibitors.values())
      if (exhibitor.clientIds.includes(clientId)) return exhibitor;
    return undefined;
  }

  /** Users of this conference, in id order. */
  conferenceUsers(): UserRecord[] {
    return [...this.users.values()].filter((user) => user.inConference);
  }

  putUser(user: UserRecord): void {
    const previous = this.users.get(user.id);
    if (previous) this.userByMail.delete(previous.email.toLowerCase());
    this.users.set(user.id, user);
    this.userByMail.set(user.email.toLowerCase(), user.id);
    for (const clientId of user.clientIds) this.userByClient.set(clientId, user.id);
  }

  setUserEmail(user: UserRecord, email: string): void {
    this.userByMail.delete(user.email.toLowerCase());
    user.email = email;
    this.userByMail.set(email.toLowerCase(), user.id);
  }

  addUserClientId(user: UserRecord, clientId: string): void {
    if (!user.clientIds.includes(clientId)) user.clientIds.push(clientId);
    this.userByClient.set(clientId, user.id);
  }

  putEvent(event: EventRecord): void {
    this.events.set(event.id, event);
    for (const clientId of event.clientIds) this.eventByClient.set(clientId, event.id);
  }

  addEventClientId(event: EventRecord, clientId: string): void {
    if (!event.clientIds.includes(clientId)) event.clientIds.push(clientId);
    this.eventByClient.set(clientId, event.id);
  }

  /** Deletes an event with everything that points at it: schedules, check-in places stay. */
  deleteEvent(event: EventRecord): void {
    this.events.delete(event.id);
    for (const clientId of event.clientIds) this.eventByClient.delete(clientId);
    for (const [userId, eventIds] of this.schedules) {
      this.schedules.set(
        userId,
        eventIds.filter((id) => id !== event.id),
      );
    }
  }

  /** Removes a user from this conference only: the platform-wide record stays. */
  removeUserFromConference(user: UserRecord): void {
    user.inConference = false;
    user.updatedOn = nowMicros();
    this.schedules.delete(user.id);
    for (const event of this.events.values()) {
      event.speakers = event.speakers.filter((speaker) => speaker.userId !== user.id);
    }
  }

  tagId(name: string): number {
    let id = this.tags.get(name);
    if (id === undefined) {
      id = this.nextId();
      this.tags.set(name, id);
    }
    return id;
  }

  scheduleOf(userId: number): number[] {
    return this.schedules.get(userId) ?? [];
  }

  contactsOf(userId: number): ContactRecord[] {
    let list = this.contacts.get(userId);
    if (!list) {
      list = [];
      this.contacts.set(userId, list);
    }
    return list;
  }

  /** The whole state; its records are the live ones (copy it to keep it: see `restore`). */
  snapshot(): StateSnapshot {
    return {
      version: 1,
      nextId: this.lastId + 1,
      adminUserId: this.adminUserId,
      conferenceFeatureId: this.conferenceFeatureId,
      conferenceName: this.conferenceName,
      users: [...this.users.values()],
      events: [...this.events.values()],
      tracks: [...this.tracks.values()],
      features: [...this.features.values()],
      exhibitors: [...this.exhibitors.values()],
      tags: Object.fromEntries(this.tags),
      schedules: Object.fromEntries([...this.schedules].map(([id, list]) => [String(id), list])),
      contacts: Object.fromEntries([...this.contacts].map(([id, list]) => [String(id), list])),
      checkIns: [...this.checkIns.values()],
    };
  }

  /** Replaces everything with a snapshot (a deep copy, so the snapshot can be reused). */
  restore(snapshot: StateSnapshot): void {
    const copy = structuredClone(snapshot);
    for (const map of [
      this.users,
      this.events,
      this.tracks,
      this.features,
      this.exhibitors,
      this.schedules,
      this.contacts,
      this.checkIns,
      this.userByClient,
      this.userByMail,
      this.eventByClient,
    ] as Array<Map<unknown, unknown>>) {
      map.clear();
    }
    this.tags.clear();
    this.lastId = copy.nextId - 1;
    this.adminUserId = copy.adminUserId;
    this.conferenceFeatureId = copy.conferenceFeatureId;
    this.conferenceName = copy.conferenceName;
    for (const user of copy.users) this.putUser(user);
    for (const event of copy.events) this.putEvent(event);
    for (const track of copy.tracks) this.tracks.set(track.id, track);
    for (const feature of copy.features) this.features.set(feature.id, feature);
    for (const exhibitor of copy.exhibitors) this.exhibitors.set(exhibitor.id, exhibitor);
    for (const [name, id] of Object.entries(copy.tags)) this.tags.set(name, id);
    for (const [id, list] of Object.entries(copy.schedules)) this.schedules.set(Number(id), list);
    for (const [id, list] of Object.entries(copy.contacts)) this.contacts.set(Number(id), list);
    for (const checkIn of copy.checkIns) this.checkIns.set(checkIn.id, checkIn);
  }
}
