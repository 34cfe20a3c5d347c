/**
 * What a reflector asks of a cluster (client-go's `ListerWatcher`): one page of a list, and a
 * watch from a resourceVersion. Objects are JSON as the cluster sent them; failures the cluster
 * answered with a Status are thrown as `ApiError`s carrying it, so a reflector can tell 410
 * Expired from the rest.
 */
import type { Json } from '../apiserver/json.js';
import type { Status } from '../apiserver/status.js';

export interface ListPageOptions {
  /** The page size; 0 or absent lists everything at once. */
  limit?: number;
  /** The continue token of the previous page. */
  continue?: string;
  /** '' is a consistent read, '0' any recent state, 'N' at least as fresh as N (or exactly N). */
  resourceVersion?: string;
  resourceVersionMatch?: '' | 'Exact' | 'NotOlderThan';
  signal?: AbortSignal;
}

export interface ListPage {
  items: Json[];
  /** The resourceVersion of the list: a watch from it misses nothing. */
  resourceVersion: string;
  /** The token of the next page; '' on the last page. */
  continue: string;
}

export interface WatchOptions {
  resourceVersion: string;
  allowWatchBookmarks: boolean;
  /** The server ends the watch after this long. */
  timeoutSeconds?: number;
  signal?: AbortSignal;
}

export type WatchEvent =
  { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; object: Json } | { type: 'ERROR'; object: Status };

/** An open watch: its events in order until the server ends it, it breaks (a rejection), or `stop()`. */
export interface WatchStream extends AsyncIterable<WatchEvent> {
  stop(): void;
}

export interface ListerWatcher {
  list(options: ListPageOptions): Promise<ListPage>;
  watch(options: WatchOptions): Promise<WatchStream>;
}
