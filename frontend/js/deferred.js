// @ts-check
// The parts of the page loaded when first used instead of as it starts (Settings, a transcript,
// the results, the dialogs): the window's engine runs scripts without a JIT, and every module
// it parses keeps its code and objects in the web process for as long as the window is open.

/**
 * What `load` makes (a module, or a view made from one), asked on first use and kept after:
 * the same promise for every later use. A failed load is not kept, so the next use asks again.
 * @template T
 * @param {() => Promise<T>} load
 * @returns {{get: () => Promise<T>, now: () => T|null}} `now`: what was made, or null before
 */
export function deferred(load) {
  /** @type {T|null} */
  let made = null;
  /** @type {Promise<T>|null} */
  let asked = null;
  return {
    get() {
      asked ??= load().then(
        (value) => (made = value),
        (err) => {
          asked = null;
          throw err;
        },
      );
      return asked;
    },
    now: () => made,
  };
}

/**
 * Run `use` with what `part` loads; where it cannot load, `onError` says so, with a Retry that
 * asks again (a dialog's button, which has no pane of its own to say it in).
 * @template T
 * @param {{get: () => Promise<T>}} part @param {string} what
 * @param {(message: string, retry: () => void) => void} onError @param {(loaded: T) => void} use
 */
export function withLoaded(part, what, onError, use) {
  part.get().then(use, (err) => onError(`Could not load ${what}: ${err.message}`, () => withLoaded(part, what, onError, use)));
}
