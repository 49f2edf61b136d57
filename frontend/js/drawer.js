// @ts-check
// The sidebar's frame: at phone width a drawer behind a button, over a scrim, that takes the
// keyboard in when it opens and gives it back when it closes; at desktop width a column whose
// width, as the person dragged it, is kept for the next time (not the drawer's).

const WIDTH_KEY = "nodwyn.sidebar-width";
const NARROWEST = 190;
const WIDEST = 480;

/**
 * Wire the drawer of the page's sidebar.
 * @param {{layout: HTMLElement, sidebar: HTMLElement, button: HTMLElement, scrim: HTMLElement,
 *   filter: HTMLElement}} parts
 * @returns {{close: () => void}}
 */
export function createDrawer({ layout, sidebar, button, scrim, filter }) {
  const phone = matchMedia("(max-width: 700px)");
  const kept = Number(localStorage.getItem(WIDTH_KEY));
  if (kept >= NARROWEST && kept <= WIDEST) sidebar.style.width = `${kept}px`;
  new ResizeObserver(() => {
    const width = Math.round(sidebar.getBoundingClientRect().width);
    if (!phone.matches && width) localStorage.setItem(WIDTH_KEY, String(width));
  }).observe(sidebar);

  /** The drawer closes; the keyboard, if it was in there, goes back to the button that opened it. */
  function close() {
    if (!layout.classList.contains("drawer-open")) return;
    const inside = sidebar.contains(document.activeElement);
    layout.classList.remove("drawer-open");
    button.setAttribute("aria-expanded", "false");
    scrim.hidden = true;
    if (inside || document.activeElement === document.body) button.focus();
  }

  button.addEventListener("click", () => {
    if (layout.classList.contains("drawer-open")) {
      close();
      return;
    }
    layout.classList.add("drawer-open");
    button.setAttribute("aria-expanded", "true");
    scrim.hidden = false;
    // the keyboard goes into the drawer: to the open task, else to the filter
    const current = sidebar.querySelector('.task-item[aria-current="page"]');
    (current instanceof HTMLElement ? current : filter).focus();
  });
  scrim.addEventListener("click", close);
  return { close };
}
