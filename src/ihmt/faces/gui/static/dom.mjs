// Small DOM helpers: build elements declaratively, with translated text kept switchable.

import { t } from './i18n.mjs';

const SVG_NS = 'http://www.w3.org/2000/svg';

function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.setAttribute('class', v);
    else if (k === 'text') el.textContent = v;
    else if (k === 'i18n') el.dataset.i18n = v;
    else if (k === 'args') el.dataset.i18nArgs = JSON.stringify(v);
    else if (k === 'title_i18n') el.dataset.i18nTitle = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
}

function translateSelf(el) {
  const args = el.dataset.i18nArgs ? JSON.parse(el.dataset.i18nArgs) : undefined;
  if (el.dataset.i18n) el.textContent = t(el.dataset.i18n, args);
  if (el.dataset.i18nTitle) el.title = t(el.dataset.i18nTitle, args);
}

/** h('div', {class: 'x', i18n: 'some.key', args: {n: 2}}, child, ...) */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  translateSelf(el);
  return el;
}

/** A translated span: tr('some.key', {n: 3}). */
export function tr(key, args) {
  return h('span', { i18n: key, args });
}

export function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

/** Replace the content of `el`. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** A stable soft colour per domain name, so the same domain looks the same everywhere. */
export function domainChip(domain) {
  let hash = 0;
  for (const ch of domain || '') hash = (hash * 31 + ch.codePointAt(0)) >>> 0;
  const chip = h('span', { class: 'chip domain', text: domain || '—' });
  chip.style.setProperty('--hue', String(hash % 360));
  return chip;
}

export function dateRange(from, to) {
  const a = from ? from.slice(0, 10) : null;
  const b = to ? to.slice(0, 10) : null;
  if (!a && !b) return null;
  return h('span', { class: 'chip date', text: a === b || !b ? a : `${a} → ${b}` });
}

const ERROR_KEYS = {
  offline: 'error.offline',
  token_missing: 'error.token',
  token_invalid: 'error.token',
  forbidden_host: 'error.host',
};

export function errorBox(err) {
  const key = ERROR_KEYS[err?.code];
  return h('div', { class: 'alert bad', role: 'alert' },
    h('strong', { i18n: 'error.title' }), ' ',
    key ? tr(key) : h('span', { text: err?.message || String(err) }));
}

export function loading() {
  return h('div', { class: 'loading' }, h('span', { class: 'spinner' }), tr('common.loading'));
}

let toastTimer = null;
export function toast(key, args, kind = 'good') {
  const el = document.getElementById('toast');
  el.className = `toast ${kind}`;
  el.replaceChildren(tr(key, args));
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.hidden = true; }, 4000);
}

/** Shorten a path under the home folder to ~/… for display. */
export function tilde(path, home) {
  if (home && path && (path === home || path.startsWith(home + '/'))) {
    return '~' + path.slice(home.length);
  }
  return path;
}
