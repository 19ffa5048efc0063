// Translations: the strings live in i18n.json ({"en": {...}, "es": {...}}).
// Elements carry their key in data-i18n (text), data-i18n-placeholder, data-i18n-title or
// data-i18n-aria-label, with arguments in data-i18n-args (JSON), so switching the language
// re-translates the whole page in place without rebuilding any screen.

const STORAGE_KEY = 'ihmt.lang';
export const LANGS = ['en', 'es'];

let strings = { en: {}, es: {} };
let lang = 'en';

export async function loadStrings() {
  const res = await fetch('/static/i18n.json', { cache: 'no-cache' });
  strings = await res.json();
}

export function getLang() {
  return lang;
}

export function initialLang() {
  let stored = null;
  try {
    stored = localStorage.getItem(STORAGE_KEY);
  } catch {
    // Storage can be disabled; fall back to the browser's language.
  }
  if (LANGS.includes(stored)) return stored;
  return (navigator.language || 'en').toLowerCase().startsWith('es') ? 'es' : 'en';
}

function format(value) {
  return typeof value === 'number' ? value.toLocaleString(lang) : String(value ?? '');
}

/** The string for `key` in the current language, with {name} placeholders filled in.
 *  A value may be {"one": ..., "other": ...}, chosen by args.n. */
export function t(key, args) {
  let s = strings[lang]?.[key] ?? strings.en?.[key] ?? key;
  if (typeof s === 'object') s = args && args.n === 1 ? s.one : s.other;
  if (!args) return s;
  return s.replace(/\{(\w+)\}/g, (m, name) => (name in args ? format(args[name]) : m));
}

function argsOf(el) {
  const raw = el.dataset.i18nArgs;
  if (!raw) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/** Translate every marked element under `root` (the whole page by default). */
export function applyI18n(root = document) {
  for (const el of root.querySelectorAll('[data-i18n]')) {
    el.textContent = t(el.dataset.i18n, argsOf(el));
  }
  for (const el of root.querySelectorAll('[data-i18n-placeholder]')) {
    el.placeholder = t(el.dataset.i18nPlaceholder);
  }
  for (const el of root.querySelectorAll('[data-i18n-title]')) {
    el.title = t(el.dataset.i18nTitle, argsOf(el));
  }
  for (const el of root.querySelectorAll('[data-i18n-aria-label]')) {
    el.setAttribute('aria-label', t(el.dataset.i18nAriaLabel));
  }
  if (root === document) {
    document.documentElement.lang = lang;
    document.title = t('app.title');
  }
}

export function setLang(next) {
  lang = LANGS.includes(next) ? next : 'en';
  try {
    localStorage.setItem(STORAGE_KEY, lang);
  } catch {
    // Not remembered, but the switch still works for this visit.
  }
  for (const btn of document.querySelectorAll('[data-lang]')) {
    btn.setAttribute('aria-pressed', String(btn.dataset.lang === lang));
  }
  applyI18n();
  document.dispatchEvent(new CustomEvent('ihmt:lang', { detail: lang }));
}
