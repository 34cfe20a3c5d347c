/** A patch that cannot be applied, with the HTTP status kube-apiserver answers it with. */
export class PatchError extends Error {
  /**
   * @param detail what went wrong, where `message` is kube-apiserver's generic one and says nothing
   *   of it (a 422 from a failed JSON patch operation, for one).
   */
  constructor(
    message: string,
    readonly status: 400 | 413 | 415 | 422 | 500,
    readonly detail?: string,
  ) {
    super(message);
    this.name = 'PatchError';
  }

  /** The 422 kube-apiserver answers a patch that cannot be applied with. */
  static rejected(detail: string): PatchError {
    return new PatchError('the server rejected our request due to an error in our request', 422, detail);
  }
}
