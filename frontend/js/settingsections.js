// @ts-check
// The sections of Settings, in the order the side navigation lists them. A module adds its own
// section with one line, without touching the dialog:
//   addSettingsSection({ id: "machines", title: "Machines", draw: (ctx) => machinesPanel(ctx) });
// `draw` gets the settings as read, a `said` line for "Saved." and failures, and `onChange` for
// every saved change; it returns the section's body (or a promise of it).

/** @typedef {{current: Record<string, any>, said: HTMLElement, onChange: (settings: Record<string, any>) => void}} SettingsContext */
/** @typedef {{id: string, title: string, draw: (ctx: SettingsContext) => HTMLElement|Promise<HTMLElement>}} SettingsSection */

/** @type {SettingsSection[]} */
export const SETTINGS_SECTIONS = [];

/** Add a section to Settings (after those already added; `before` puts it before that id's).
 * @param {SettingsSection} section @param {string} [before] */
export function addSettingsSection(section, before = "") {
  const at = SETTINGS_SECTIONS.findIndex((s) => s.id === section.id);
  if (at >= 0) SETTINGS_SECTIONS.splice(at, 1); // a module loaded twice adds it once
  const where = before ? SETTINGS_SECTIONS.findIndex((s) => s.id === before) : -1;
  if (where >= 0) SETTINGS_SECTIONS.splice(where, 0, section);
  else SETTINGS_SECTIONS.push(section);
}
