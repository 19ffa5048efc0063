// Set up: choose (or create) the memory folder, and register the memory server with the
// agents. Every write is previewed first; only the confirm button of a preview writes.

import { api, Turns } from './api.mjs';
import { errorBox, fill, h, loading, tilde, toast, tr } from './dom.mjs';
import { FolderBrowser } from './folders.mjs';

let built = false;
let shownVersion = -1;
let browser = null;
let dialogBrowser = null;
let dialogAgent = null;
const agentState = {}; // agent -> {scope, project}

const WHAT_KEYS = {
  'memory folder': 'what.memory',
  'mcp entry': 'what.entry',
  instructions: 'what.instructions',
};

const $ = (id) => document.getElementById(id);

export async function show(ctx) {
  if (!built) {
    built = true;
    build(ctx);
  }
  if (shownVersion !== ctx.version) {
    shownVersion = ctx.version;
    renderCurrent(ctx);
  }
  renderAgents(ctx);
}

function build(ctx) {
  browser = new FolderBrowser($('setup-browser'), {
    chooseKey: 'setup.use_folder',
    onChoose: (dir) => decide(ctx, dir),
  });
  browser.open(ctx.status.home);
  const dialog = $('folder-dialog');
  dialogBrowser = new FolderBrowser($('folder-dialog-body'), {
    chooseKey: 'dialog.use_project',
    onChoose: (dir) => {
      agentState[dialogAgent].project = dir;
      dialog.close();
      renderAgents(ctx);
    },
  });
  $('folder-dialog-close').addEventListener('click', () => dialog.close());
}

function renderCurrent(ctx) {
  const s = ctx.status;
  fill($('setup-current'),
    h('span', { class: 'muted', i18n: 'setup.current' }),
    h('code', { text: tilde(s.store_path, s.home) }),
    s.exists
      ? h('span', { class: 'chip good', i18n: 'folders.memory_here', args: { n: s.stats.leaves } })
      : h('span', { class: 'chip muted', i18n: 'setup.not_created' }));
}

// ---------------------------------------------------------------- the memory folder
const folderTurns = new Turns(); // store previews: only the newest one is shown
async function decide(ctx, dir) {
  const box = $('setup-decision');
  fill(box, loading());
  const res = await folderTurns.latest(() => api('/api/store/preview', { body: { path: dir } }),
    (err) => fill(box, errorBox(err)));
  if (!res) return; // failed, or another folder was chosen meanwhile
  if (res.exists) {
    const inUse = res.store_path === ctx.status.store_path;
    fill(box, h('div', { class: 'decision' },
      h('p', {}, h('span', { i18n: 'setup.exists', args: { n: res.leaves ?? 0 } }), ' ',
        h('code', { text: tilde(res.store_path, ctx.status.home) })),
      inUse
        ? h('p', { class: 'muted', i18n: 'setup.in_use' })
        : h('div', { class: 'actions' },
          h('button', {
            type: 'button', class: 'btn primary', id: 'setup-open', i18n: 'setup.open',
            onclick: () => openStore(ctx, res.folder, box),
          }))));
    return;
  }
  fill(box, h('div', { class: 'preview-card', id: 'store-preview' },
    h('h3', { i18n: 'setup.create_title' }),
    h('p', { class: 'hint', i18n: 'setup.create_hint' }),
    h('ul', { class: 'file-list' }, res.creates.map((p) => h('li', {}, h('code', { text: p })))),
    h('div', { class: 'actions' },
      h('button', {
        type: 'button', class: 'btn primary', id: 'setup-create', i18n: 'setup.create',
        onclick: () => createStore(ctx, res.plan_id, box),
      }),
      h('button', {
        type: 'button', class: 'btn ghost', i18n: 'common.cancel', onclick: () => fill(box),
      }))));
}

async function openStore(ctx, folder, box) {
  try {
    const res = await api('/api/store/open', { body: { path: folder } });
    await ctx.refresh();
    renderCurrent(ctx);
    renderAgents(ctx);
    fill(box, h('div', { class: 'alert good' }, tr('setup.opened'), ' ',
      h('code', { text: tilde(res.store_path, ctx.status.home) })));
    toast('setup.opened_toast');
  } catch (err) {
    fill(box, errorBox(err));
  }
}

async function createStore(ctx, planId, box) {
  try {
    const res = await api('/api/store/create', { body: { plan_id: planId } });
    await ctx.refresh();
    renderCurrent(ctx);
    renderAgents(ctx);
    fill(box, h('div', { class: 'alert good', id: 'store-created' }, tr('setup.created'), ' ',
      h('code', { text: tilde(res.store_path, ctx.status.home) })));
    toast('setup.created_toast');
    browser.open(browser.data?.dir);
  } catch (err) {
    fill(box, errorBox(err));
  }
}

// ---------------------------------------------------------------- agents
function renderAgents(ctx) {
  const s = ctx.status;
  fill($('setup-agents'),
    h('p', { class: 'uses' }, tr('setup.agents_memory'), ' ',
      h('code', { text: tilde(s.memory_home, s.home) })),
    s.agents.map((a) => agentCard(ctx, a)));
}

function registrationChips(a) {
  if (!a.registrations.length) return h('span', { class: 'chip muted', i18n: 'setup.not_registered' });
  return a.registrations.map((r) => h('span', {
    class: `chip ${r.problem ? 'bad' : 'good'}`,
    i18n: `setup.registered_${r.scope}`,
    title: `${r.config}${r.memory_home ? ` → ${r.memory_home}` : ''}`,
  }));
}

function agentCard(ctx, a) {
  const st = agentState[a.agent] || (agentState[a.agent] = { scope: 'user', project: '' });
  const radio = (value, key) => h('label', { class: 'radio' },
    h('input', {
      type: 'radio', name: `scope-${a.agent}`, value, checked: st.scope === value,
      onchange: () => { st.scope = value; renderAgents(ctx); },
    }),
    tr(key));
  return h('div', { class: 'agent', dataset: { agent: a.agent } },
    h('div', { class: 'agent-head' },
      h('strong', { class: 'agent-name', text: a.label }),
      h('span', { class: 'agent-status' }, registrationChips(a))),
    h('div', { class: 'agent-body' },
      h('div', { class: 'scopes', role: 'radiogroup' },
        radio('user', 'setup.scope_user'), radio('project', 'setup.scope_project')),
      st.scope === 'project'
        ? h('div', { class: 'project' },
          st.project
            ? h('code', { text: tilde(st.project, ctx.status.home) })
            : h('span', { class: 'muted', i18n: 'setup.no_project' }),
          h('button', {
            type: 'button', class: 'btn small', i18n: 'setup.choose_project',
            onclick: () => {
              dialogAgent = a.agent;
              $('folder-dialog').showModal();
              dialogBrowser.open(st.project || ctx.status.home);
            },
          }))
        : null,
      h('button', {
        type: 'button', class: 'btn', id: `preview-${a.agent}`, i18n: 'setup.preview',
        onclick: () => preview(ctx, a),
      })));
}

function shellJoin(argv) {
  return argv.map((x) => (/^[\w@%+=:,./-]+$/.test(x) ? x : `'${x.replace(/'/g, "'\\''")}'`)).join(' ');
}

function diffView(diff) {
  const pre = h('pre', { class: 'diff' });
  for (const line of diff.split('\n')) {
    let cls = '';
    if (line.startsWith('+++') || line.startsWith('---')) cls = 'meta';
    else if (line.startsWith('@@')) cls = 'hunk';
    else if (line.startsWith('+')) cls = 'add';
    else if (line.startsWith('-')) cls = 'del';
    pre.append(h('span', { class: cls, text: `${line}\n` }));
  }
  return pre;
}

function changeView(c) {
  return h('div', { class: `change-item ${c.action}` },
    h('div', { class: 'change-head' },
      h('span', { class: `chip action ${c.action}`, i18n: `action.${c.action}` }),
      h('strong', { i18n: WHAT_KEYS[c.what] || 'what.other' }),
      c.path ? h('code', { class: 'path', text: c.path }) : null),
    c.command ? h('pre', { class: 'cmd', text: `$ ${shellJoin(c.command)}` }) : null,
    !c.command && c.diff ? diffView(c.diff) : null,
    c.backup ? h('p', { class: 'hint' }, tr('setup.backup'), ' ', h('code', { text: c.backup })) : null,
    c.note ? h('p', { class: 'hint', text: c.note }) : null);
}

const agentTurns = new Turns(); // agent previews: only the newest one is shown

async function preview(ctx, a) {
  const st = agentState[a.agent];
  const box = $('setup-preview');
  if (st.scope === 'project' && !st.project) {
    toast('setup.need_project', null, 'warn');
    return;
  }
  fill(box, loading());
  const res = await agentTurns.latest(() => api('/api/setup/preview', {
    body: { agent: a.agent, scope: st.scope, project: st.scope === 'project' ? st.project : undefined },
  }), (err) => fill(box, errorBox(err)));
  // Failed, or another preview was asked for meanwhile: its Apply button, not this one, is shown.
  if (!res) return;
  const r = res.result;
  const scopeKey = st.scope === 'user' ? 'setup.scope_user' : 'setup.scope_project';
  fill(box, h('div', { class: 'preview-card', id: 'agent-preview' },
    h('h3', {}, tr('setup.preview_title'), ' ', h('span', { class: 'agent-name', text: a.label }),
      ' ', h('span', { class: 'chip' }, tr(scopeKey))),
    h('p', { class: 'hint' }, tr('setup.preview_hint')),
    r.changes.map(changeView),
    r.notes.length ? h('ul', { class: 'notes' }, r.notes.map((n) => h('li', { text: n }))) : null,
    r.changed
      ? h('div', { class: 'actions' },
        h('button', {
          type: 'button', class: 'btn primary', id: 'setup-apply', i18n: 'setup.apply',
          onclick: () => apply(ctx, res.plan_id, box),
        }),
        h('button', { type: 'button', class: 'btn ghost', i18n: 'common.cancel', onclick: () => fill(box) }))
      : h('div', { class: 'alert good', i18n: 'setup.nothing_to_do' })));
  box.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
}

async function apply(ctx, planId, box) {
  for (const b of box.querySelectorAll('button')) b.disabled = true;
  try {
    const res = await api('/api/setup/apply', { body: { plan_id: planId } });
    await ctx.refresh();
    renderAgents(ctx);
    fill(box, h('div', { class: 'alert good', id: 'setup-applied' },
      h('strong', { i18n: 'setup.applied' }),
      h('pre', { class: 'cmd', text: res.lines.join('\n') })));
    toast('setup.applied_toast');
    renderCurrent(ctx);
  } catch (err) {
    fill(box, errorBox(err));
  }
}
