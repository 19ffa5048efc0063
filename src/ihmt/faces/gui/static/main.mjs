// Entry point: language, access token, tabs, and the status shared by every screen.

import { api, readToken } from './api.mjs';
import * as diagnose from './diagnose.mjs';
import { errorBox, fill, tilde } from './dom.mjs';
import * as explore from './explore.mjs';
import { applyI18n, initialLang, loadStrings, setLang } from './i18n.mjs';
import * as setup from './setup.mjs';
import * as timeline from './timeline.mjs';

const SCREENS = { setup, explore, diagnose, timeline };

const ctx = {
  status: null,
  // Bumped whenever the memory being shown changes, so screens know to reload.
  version: 0,
  current: null,

  async refresh() {
    const prev = this.status;
    this.status = await api('/api/status');
    const s = this.status;
    if (!prev || prev.store_path !== s.store_path || prev.exists !== s.exists) this.version += 1;
    const chip = document.getElementById('store-path');
    chip.textContent = tilde(s.store_path, s.home);
    document.getElementById('store-chip').classList.toggle('missing', !s.exists);
    return s;
  },

  go(name) {
    const tab = SCREENS[name] ? name : 'explore';
    this.current = tab;
    for (const section of document.querySelectorAll('.screen')) {
      section.hidden = section.dataset.screen !== tab;
    }
    for (const btn of document.querySelectorAll('[data-tab]')) {
      const on = btn.dataset.tab === tab;
      btn.setAttribute('aria-selected', String(on));
      btn.tabIndex = on ? 0 : -1;
    }
    if (window.location.hash !== `#${tab}`) history.replaceState(null, '', `#${tab}`);
    return Promise.resolve(SCREENS[tab].show(this)).catch((err) => {
      const host = document.querySelector(`#screen-${tab} [id$="-body"]`)
        || document.getElementById(`screen-${tab}`);
      fill(host, errorBox(err));
    });
  },
};

async function main() {
  await loadStrings();
  setLang(initialLang());
  for (const btn of document.querySelectorAll('[data-lang]')) {
    btn.addEventListener('click', () => setLang(btn.dataset.lang));
  }
  if (!readToken()) {
    document.getElementById('fatal').hidden = false;
    document.querySelector('.tabs').hidden = true;
    document.getElementById('store-chip').hidden = true;
    return;
  }
  try {
    await ctx.refresh();
  } catch (err) {
    const fatal = document.getElementById('fatal');
    fatal.hidden = false;
    fatal.append(errorBox(err));
    document.querySelector('.tabs').hidden = true;
    document.getElementById('store-chip').hidden = true;
    applyI18n(fatal);
    return;
  }
  for (const btn of document.querySelectorAll('[data-tab]')) {
    btn.addEventListener('click', () => ctx.go(btn.dataset.tab));
  }
  document.getElementById('store-chip').addEventListener('click', () => ctx.go('setup'));
  document.querySelector('.brand').addEventListener('click', (ev) => {
    ev.preventDefault();
    ctx.go('explore');
  });
  window.addEventListener('hashchange', () => ctx.go(window.location.hash.slice(1)));
  const wanted = window.location.hash.slice(1);
  await ctx.go(SCREENS[wanted] ? wanted : ctx.status.exists ? 'explore' : 'setup');
  document.body.dataset.ready = 'true';
}

main();
