import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';

/** An answer read whole: its status, headers and body as text. */
export interface WholeAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * A request whose answer is read whole, through undici's `dispatch` with a handler that collects
 * the chunks, without the body stream and its promise `request` makes for each answer (10-16%
 * less CPU per forwarded GET: BENCHMARKS.md, "GET through HAProxy, a bare Node proxy and the
 * gateway"). `signal` aborts it, also while it waits for a connection; `failed` turns a failure
 * into what the promise rejects with, told whether any answer had begun.
 */
export function dispatchWhole(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal?: AbortSignal,
  failed: (err: Error, answered: boolean) => Error = (err) => err,
): Promise<WholeAnswer> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    let status = 0;
    let headers: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    let abort: (() => void) | undefined;
    const settled = () => {
      if (abort) signal?.removeEventListener('abort', abort);
    };
    dispatcher.dispatch(options, {
      // Its presence tells undici the handler speaks the controller API (the hooks below).
      onRequestStart: (controller) => {
        if (!signal) return;
        // Aborted while the request waited for a connection: no event comes for it now.
        if (signal.aborted) return controller.abort(abortError(signal));
        abort = () => controller.abort(abortError(signal));
        signal.addEventListener('abort', abort, { once: true });
      },
      onResponseStart: (_controller, statusCode, responseHeaders) => {
        status = statusCode;
        headers = responseHeaders;
      },
      onResponseData: (_controller, chunk) => chunks.push(chunk),
      onResponseEnd: () => {
        settled();
        resolve({ status, headers, text: Buffer.concat(chunks).toString('utf8') });
      },
      onResponseError: (_controller, err) => {
        settled();
        reject(failed(err, status !== 0));
      },
    });
  });
}

/** What an aborted request rejects with: node's AbortError, which node:https requests rejected with. */
function abortError(signal: AbortSignal): Error {
  const err = new Error('The operation was aborted', { cause: signal.reason });
  err.name = 'AbortError';
  return err;
}
