// A folder browser served by the app itself (/api/fs lists subfolders only, never file
// contents): the browser's own file dialog cannot hand a web page a real path.

import { api, Turns } from './api.mjs';
import { errorBox, fill, h, tr } from './dom.mjs';

function crumbs(dir) {
  const win = /^[A-Za-z]:[\\/]/.test(dir);
  const sep = win ? '\\' : '/';
  const parts = dir.split(/[\\/]/).filter(Boolean);
  let acc = win ? parts.shift() + sep : '/';
  const out = [{ label: acc, path: acc }];
  for (const p of parts) {
    acc = acc.endsWith(sep) ? acc + p : acc + sep + p;
    out.push({ label: p, path: acc });
  }
  return out;
}

export class FolderBrowser {
  /** `onChoose(dir, listing)` runs when the user chooses the folder being shown. */
  constructor(container, { onChoose, chooseKey }) {
    this.container = container;
    this.onChoose = onChoose;
    this.chooseKey = chooseKey;
    this.hidden = false;
    this.data = null;
    this.target = undefined; // the folder asked for last, shown or still loading
    this.turns = new Turns();
  }

  async open(dir) {
    this.target = dir;
    const data = await this.turns.latest(
      () => api('/api/fs', { params: { dir, hidden: this.hidden ? 1 : 0 } }),
      (err) => {
        if (dir && this.data === null) this.open(undefined); // fall back to home
        else fill(this.container, errorBox(err));
      });
    if (!data) return; // failed, or a newer request (another folder, the toggle) won
    this.data = data;
    this.target = data.dir;
    this.render();
  }

  render() {
    const d = this.data;
    const list = d.entries.length
      ? h('ul', { class: 'folders', role: 'listbox' }, d.entries.map((e) => h('li', {},
        h('button', {
          type: 'button', class: `folder${e.hidden ? ' hidden-folder' : ''}`, dataset: { path: e.path },
          onclick: () => this.open(e.path),
        },
        h('span', { class: 'folder-icon', 'aria-hidden': 'true' }),
        h('span', { class: 'folder-name', text: e.name }),
        e.store ? h('span', { class: 'chip good', i18n: 'folders.has_memory' }) : null))))
      : h('p', { class: 'hint empty-folder', i18n: d.denied ? 'folders.denied' : 'folders.none' });
    fill(this.container, h('div', { class: 'browser' },
      h('div', { class: 'browser-bar' },
        h('button', {
          type: 'button', class: 'btn small', disabled: !d.parent, i18n: 'folders.up',
          onclick: () => this.open(d.parent),
        }),
        h('button', {
          type: 'button', class: 'btn small', i18n: 'folders.home', onclick: () => this.open(d.home),
        }),
        h('nav', { class: 'breadcrumbs' }, crumbs(d.dir).map((c) => h('button', {
          type: 'button', class: 'crumb-btn', text: c.label, onclick: () => this.open(c.path),
        }))),
        h('label', { class: 'toggle' },
          h('input', {
            type: 'checkbox', checked: this.hidden,
            onchange: (ev) => { this.hidden = ev.target.checked; this.open(this.target ?? d.dir); },
          }),
          tr('folders.show_hidden'))),
      list,
      d.truncated ? h('p', { class: 'hint', i18n: 'folders.truncated' }) : null,
      h('div', { class: 'browser-foot' },
        h('div', { class: 'chosen' },
          h('span', { class: 'muted', i18n: 'folders.current' }),
          h('code', { class: 'chosen-path', text: d.dir }),
          d.store.exists
            ? h('span', { class: 'chip good', i18n: 'folders.memory_here', args: { n: d.store.leaves ?? 0 } })
            : null),
        h('button', {
          type: 'button', class: 'btn primary', i18n: this.chooseKey, id: `${this.container.id}-choose`,
          onclick: () => this.onChoose(d.dir, d),
        }))));
  }
}
