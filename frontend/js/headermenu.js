// @ts-check
// At phone width a task's header is one row: the drawer button, the title and a menu (⋯)
// that holds the task's buttons, its details and the search (style.css hides them while the
// menu is shut). A wider window shows them all and never sees the menu button. The menu
// shuts once one of its buttons has been used or a search is sent; Ctrl+K or / opens it to
// reach the search box.

/** @param {{header: HTMLElement, button: HTMLElement, actions: HTMLElement, form: HTMLFormElement}} parts */
export function createHeaderMenu({ header, button, actions, form }) {
  const set = (/** @type {boolean} */ open) => {
    header.classList.toggle("menu-open", open);
    button.setAttribute("aria-expanded", String(open));
  };
  button.addEventListener("click", () => set(!header.classList.contains("menu-open")));
  actions.addEventListener("click", (event) => {
    if (event.target instanceof Element && event.target.closest("button:not([data-rename])")) set(false);
  });
  form.addEventListener("submit", () => set(false));
  return {
    /** Open the menu where it hides the search box, so that the box can take the keyboard. */
    showSearch: () => {
      if (getComputedStyle(form).display === "none") set(true);
    },
    close: () => set(false),
  };
}
