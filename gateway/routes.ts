/**
 * A routing table: an ordered list of routes, each a predicate and what serves what it matches.
 * The first route that matches serves the request, so a new way of serving a request (from the
 * cache, say) is one entry placed before the one it overtakes.
 */
export interface Route<R> {
  /** What the route serves, for reading the table and for errors. */
  readonly name: string;
  matches(request: R): boolean;
  serve(request: R): Promise<void> | void;
}

/** The first route of `routes` that matches the request. */
export function routeFor<R>(routes: readonly Route<R>[], request: R): Route<R> | undefined {
  return routes.find((route) => route.matches(request));
}
