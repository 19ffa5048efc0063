// Pieces more than one screen uses.

import { h, tilde } from './dom.mjs';

/** The empty state of a reading screen when the chosen folder holds no memory yet. */
export function noStore(ctx) {
  return h('div', { class: 'empty card' },
    h('div', { class: 'empty-icon', 'aria-hidden': 'true' }),
    h('h2', { i18n: 'empty.title' }),
    h('p', {}, h('span', { i18n: 'empty.body' }), ' ',
      h('code', { text: tilde(ctx.status.store_path, ctx.status.home) })),
    h('button', {
      type: 'button', class: 'btn primary', i18n: 'empty.action', onclick: () => ctx.go('setup'),
    }));
}
