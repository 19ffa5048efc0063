// Diagnose: one search, shown with everything that explains its answer — status and
// confidence, how many files the descent opened, the path it took drawn on the tree, and
// the ranked candidates with their scores.

import { api, Turns } from './api.mjs';
import { dateRange, domainChip, errorBox, fill, h, loading, tr } from './dom.mjs';
import { noStore } from './shared.mjs';
import { TreeView } from './tree.mjs';

let wired = false;
let lastVersion = -1;
const turns = new Turns();

const STATUS_CLASS = { FOUND: 'good', AMBIGUOUS: 'warn', NOT_FOUND: 'bad' };

export function show(ctx) {
  const form = document.getElementById('search-form');
  const body = document.getElementById('diagnose-body');
  form.hidden = !ctx.status.exists;
  if (!ctx.status.exists) {
    fill(body, noStore(ctx));
    lastVersion = -1;
    return;
  }
  if (!wired) {
    wired = true;
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      run(new FormData(form));
    });
  }
  if (lastVersion !== ctx.version) {
    lastVersion = ctx.version;
    fill(body, h('div', { class: 'card muted-card' }, tr('diagnose.idle')));
  }
}

async function run(form) {
  const body = document.getElementById('diagnose-body');
  const params = { q: form.get('q'), clue: form.get('clue'), k: form.get('k') };
  fill(body, loading());
  const res = await turns.latest(() => api('/api/search', { params }),
    (err) => fill(body, errorBox(err)));
  if (!res) return; // failed, or a newer search was submitted meanwhile
  const treeHost = h('div', { id: 'diagnose-tree' }, loading());
  const tree = new TreeView(treeHost, { leafBodies: true });
  fill(body,
    summary(res),
    h('div', { class: 'grid cols-diag' },
      h('article', { class: 'card' },
        h('div', { class: 'card-head' }, h('h2', { i18n: 'diagnose.path_title' })),
        legend(),
        treeHost),
      h('article', { class: 'card' },
        h('div', { class: 'card-head' }, h('h2', { i18n: 'diagnose.candidates' })),
        hitsList(res, tree))));
  try {
    await tree.load();
    const ranks = new Map(res.hits.map((hit, i) => [hit.id, i + 1]));
    tree.mark({ visited: res.visited, path: res.best_path, ranks });
    await tree.expandAll(res.visited);
    await tree.reveal(res.best_path);
    tree.mark({ visited: res.visited, path: res.best_path, ranks });
  } catch (err) {
    fill(treeHost, errorBox(err));
  }
}

function legend() {
  return h('div', { class: 'legend' },
    h('span', { class: 'legend-item' }, h('span', { class: 'swatch visited' }), tr('diagnose.legend_visited')),
    h('span', { class: 'legend-item' }, h('span', { class: 'swatch on-path' }), tr('diagnose.legend_path')),
    h('span', { class: 'legend-item' }, h('span', { class: 'rank' }, '#1'), tr('diagnose.legend_rank')));
}

function meter(value) {
  const pct = Math.max(0, Math.min(1, value)) * 100;
  const bar = h('span', { class: 'meter-bar' });
  bar.style.width = `${pct.toFixed(0)}%`;
  return h('span', { class: 'meter', role: 'img', 'aria-label': value.toFixed(2) }, bar);
}

function summary(res) {
  const cls = STATUS_CLASS[res.status] || 'warn';
  const best = res.hits[0];
  const explain = {
    FOUND: 'diagnose.explain_found',
    AMBIGUOUS: 'diagnose.explain_ambiguous',
    NOT_FOUND: 'diagnose.explain_not_found',
  }[res.status];
  return h('article', { class: `card summary ${cls}` },
    h('div', { class: 'summary-top' },
      h('span', { class: `status-badge ${cls}`, id: 'diag-status', i18n: `status.${res.status}` }),
      h('div', { class: 'figure' },
        h('span', { class: 'figure-label', i18n: 'diagnose.confidence' }),
        h('span', { class: 'figure-row' }, meter(res.confidence),
          h('strong', { text: res.confidence.toFixed(2) }))),
      h('div', { class: 'figure' },
        h('span', { class: 'figure-label', i18n: 'diagnose.branch_files' }),
        h('strong', { i18n: 'diagnose.of', args: { a: res.node_reads, b: res.total_nodes } })),
      h('div', { class: 'figure' },
        h('span', { class: 'figure-label', i18n: 'diagnose.leaf_files' }),
        h('strong', { i18n: 'diagnose.of', args: { a: res.leaf_reads, b: res.total_leaves } }))),
    h('p', { class: 'explain' }, tr(explain)),
    res.message ? h('blockquote', { class: 'libmsg' },
      h('span', { class: 'libmsg-label', i18n: 'diagnose.message' }), ' ', res.message) : null,
    res.capped ? h('div', { class: 'alert warn' }, tr('diagnose.capped')) : null,
    res.notices.map((n) => h('div', { class: 'alert warn', text: n })),
    res.status === 'FOUND' && best ? h('div', { class: 'best' },
      h('div', { class: 'best-head' }, tr('diagnose.best'), ' ', pathCrumbs(best.path)),
      h('pre', { class: 'leaf-text', text: best.text || best.excerpt })) : null);
}

function pathCrumbs(path) {
  return h('span', { class: 'crumbs' }, path.map((id, i) => [
    i ? h('span', { class: 'sep', 'aria-hidden': 'true', text: '›' }) : null,
    h('code', { class: 'crumb', title: id, text: id === 'root' ? 'root' : id })]));
}

function hitsList(res, tree) {
  if (!res.hits.length) return h('p', { class: 'hint' }, tr('diagnose.no_candidates'));
  const top = Math.max(...res.hits.map((x) => x.score), 1e-9);
  return h('ol', { class: 'hits' }, res.hits.map((hit, i) => {
    const bar = h('span', { class: 'score-bar' });
    bar.style.width = `${Math.max(2, (hit.score / top) * 100).toFixed(0)}%`;
    return h('li', { class: `hit${hit.outdated ? ' outdated' : ''}`, dataset: { id: hit.id } },
      h('div', { class: 'hit-head' },
        h('span', { class: 'rank', text: `#${i + 1}` }),
        h('span', { class: 'score', title_i18n: 'diagnose.score' },
          h('span', { class: 'score-track' }, bar), h('code', { text: hit.score.toFixed(3) })),
        domainChip(hit.domain),
        dateRange(hit.date, null),
        hit.source ? h('span', { class: 'chip src', text: hit.source }) : null,
        hit.outdated ? h('span', { class: 'chip warn', i18n: 'tree.outdated' }) : null),
      h('p', { class: 'excerpt', text: hit.excerpt }),
      hit.notices.length ? h('ul', { class: 'notices' }, hit.notices.map((n) => h('li', { text: n }))) : null,
      h('div', { class: 'hit-foot' },
        pathCrumbs(hit.path),
        h('button', {
          type: 'button', class: 'btn ghost small', i18n: 'diagnose.show_in_tree',
          onclick: async () => {
            await tree.reveal(hit.path);
            const row = tree.row(hit.id);
            if (row) {
              row.scrollIntoView({ block: 'center', behavior: 'smooth' });
              row.classList.add('flash');
              setTimeout(() => row.classList.remove('flash'), 1600);
            }
          },
        })));
  }));
}
