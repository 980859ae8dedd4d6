// Tauri listeners register asynchronously; a component may unmount first. This returns an
// unsubscribe function that works either way.
export function subscribe(register: () => Promise<() => void>): () => void {
  if (!("__TAURI_INTERNALS__" in window)) return () => {};
  let unlisten: (() => void) | null = null;
  let cancelled = false;
  register()
    .then((fn) => {
      if (cancelled) fn();
      else unlisten = fn;
    })
    .catch(() => {
      // Without the event permission the app still works through its buttons.
    });
  return () => {
    cancelled = true;
    unlisten?.();
  };
}
