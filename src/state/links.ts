// The members of one of a task's relations (dependencies, dependents, waitingForData,
// waiters: tasks; whoHas: peer addresses), stored as small as they can be:
//
//   null        no member
//   a member    exactly one (most links: a dependency has one dependent, one waiter, one holder)
//   an array    2 to ARRAY_LIMIT members, in insertion order
//   a Set       more members, or a relation someone read through TaskState's public getter
//
// A Set per relation per task was the largest allocation of the state machine (W2: about 14
// Sets per task, 27 % of all bytes allocated). A Set is never turned back into another form:
// the public getters (`ts.dependents`, …) hand out the Set itself, which then stays the
// storage, so a caller holding it sees every later change (a live view), and a cleared
// relation is emptied in place. Arrays and single members are never handed out.

declare const LINKS: unique symbol;
/**
 * Opaque (`null` is the empty relation): read and change it only through the functions
 * below, so that no caller iterates a lone member (a string is iterable) or calls `.size`.
 */
export type Links<T> = { readonly [LINKS]: T } | null;
type Storage<T> = T | T[] | Set<T> | null;

/** Above this many members a relation becomes a Set (indexOf and shifting are linear). */
const ARRAY_LIMIT = 8;

function storage<T>(links: Links<T>): Storage<T> {
  return links as unknown as Storage<T>;
}

function wrap<T>(members: Storage<T>): Links<T> {
  return members as unknown as Links<T>;
}

function isList<T>(members: Storage<T>): members is T[] {
  return Array.isArray(members);
}

export function linkCount<T>(of: Links<T>): number {
  const links = storage(of);
  if (links === null) return 0;
  if (isList(links)) return links.length;
  if (links instanceof Set) return links.size;
  return 1;
}

export function linkHas<T>(of: Links<T>, item: T): boolean {
  const links = storage(of);
  if (links === null) return false;
  if (isList(links)) return links.includes(item);
  if (links instanceof Set) return links.has(item);
  return links === item;
}

/** `links` with `item` added (once: like a Set). */
export function withLink<T>(of: Links<T>, item: T): Links<T> {
  const links = storage(of);
  if (links === null) return wrap(item);
  if (isList(links)) {
    if (links.includes(item)) return of;
    if (links.length < ARRAY_LIMIT) {
      links.push(item);
      return of;
    }
    const set = new Set(links);
    set.add(item);
    return wrap(set);
  }
  if (links instanceof Set) {
    links.add(item);
    return of;
  }
  return links === item ? of : wrap(pair(links, item));
}

/**
 * `[a, b]` with room for four: a two-element literal that is pushed to grows a 20-slot
 * backing store (176 bytes, kept as long as the task), this one keeps 4 (48 bytes).
 * Shortened by `pop`, which optimised code does inline: a `length` store goes through the
 * runtime's accessor (with the one in withoutLink, 0.8 % of W2's instructions).
 */
function pair<T>(a: T, b: T): T[] {
  const list = [a, b, b, b];
  list.pop();
  list.pop();
  return list;
}

/** `links` without `item` (a Set is emptied in place, never replaced). */
export function withoutLink<T>(of: Links<T>, item: T): Links<T> {
  const links = storage(of);
  if (links === null) return null;
  if (isList(links)) {
    const i = links.indexOf(item);
    if (i < 0) return of;
    if (links.length === 2) return wrap(links[1 - i] as T);
    for (let j = i + 1; j < links.length; j++) links[j - 1] = links[j] as T;
    links.pop();
    return of;
  }
  if (links instanceof Set) {
    links.delete(item);
    return of;
  }
  return links === item ? null : of;
}

/** No member (a Set is emptied in place, so whoever holds it sees it empty). */
export function clearedLinks<T>(of: Links<T>): Links<T> {
  const links = storage(of);
  if (links instanceof Set) {
    links.clear();
    return of;
  }
  return null;
}

/**
 * `next` as the new members of a relation that held `current`: a Set (maybe held by a
 * caller) is refilled in place, anything else is simply replaced.
 */
export function replacedLinks<T>(current: Links<T>, next: Links<T>): Links<T> {
  const links = storage(current);
  if (!(links instanceof Set)) return next;
  links.clear();
  forEachLink(next, addTo, links, null);
  return current;
}

function addTo<T>(item: T, set: Set<T>): void {
  set.add(item);
}

/** A relation whose storage is `set` (TaskState's public setter). */
export function linksOfSet<T>(set: Set<T>): Links<T> {
  return wrap(set);
}

/** The members as a Set that becomes the relation's storage (TaskState's public getters). */
export function observedLinks<T>(of: Links<T>): Set<T> {
  const links = storage(of);
  if (links instanceof Set) return links;
  if (links === null) return new Set();
  if (isList(links)) return new Set(links);
  return new Set([links]);
}

/** `fn(member, a, b)` for each member, in order. */
export function forEachLink<T, A, B>(of: Links<T>, fn: (item: T, a: A, b: B) => void, a: A, b: B): void {
  const links = storage(of);
  if (links === null) return;
  if (isList(links)) {
    for (let i = 0; i < links.length; i++) fn(links[i] as T, a, b);
  } else if (links instanceof Set) {
    for (const item of links) fn(item, a, b);
  } else {
    fn(links, a, b);
  }
}

/** Whether `test(member, a)` holds for every member (true when there is none). */
export function everyLink<T, A>(of: Links<T>, test: (item: T, a: A) => boolean, a: A): boolean {
  const links = storage(of);
  if (links === null) return true;
  if (isList(links)) {
    for (let i = 0; i < links.length; i++) if (!test(links[i] as T, a)) return false;
    return true;
  }
  if (links instanceof Set) {
    for (const item of links) if (!test(item, a)) return false;
    return true;
  }
  return test(links, a);
}

const NO_MEMBERS: readonly never[] = Object.freeze([]);

/** The members as an array (fresh, or a shared empty one): for paths that are not hot. */
export function linksToArray<T>(of: Links<T>): readonly T[] {
  const links = storage(of);
  if (links === null) return NO_MEMBERS;
  if (isList(links)) return links.slice();
  if (links instanceof Set) return [...links];
  return [links];
}
