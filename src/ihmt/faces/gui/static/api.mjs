// Talking to the server: every /api call carries the access token in a header.
// The token arrives once in the page URL (?token=...); it is kept in sessionStorage for
// reloads of this tab and removed from the address bar so it does not linger in history.

const KEY = 'ihmt.token';
let token = null;

export function readToken() {
  const url = new URL(window.location.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl) {
    try {
      sessionStorage.setItem(KEY, fromUrl);
    } catch {
      // Without storage the token lives only in this variable, which is enough.
    }
    url.searchParams.delete('token');
    history.replaceState(null, '', url.pathname + url.search + url.hash);
    token = fromUrl;
  } else {
    try {
      token = sessionStorage.getItem(KEY);
    } catch {
      token = null;
    }
  }
  return token;
}

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** GET `path` as a file the browser saves (an export): fetched with the token, then
 * handed to a temporary link, so the token never appears in an address. */
export async function download(path, params = {}) {
  const url = new URL(path, window.location.origin);
  for (const [k, v] of Object.entries(params)) if (v) url.searchParams.set(k, v);
  let res;
  try {
    res = await fetch(url, { headers: { 'X-IHMT-Token': token || '' } });
  } catch {
    throw new ApiError(0, 'offline', 'the IHMT server does not answer: is `ihmt gui` still running?');
  }
  if (!res.ok) {
    const data = await res.json().catch(() => ({}));
    throw new ApiError(res.status, data.error || 'error', data.message || res.statusText);
  }
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') || '')?.[1]
    || 'ihmt-export';
  const link = document.createElement('a');
  link.href = URL.createObjectURL(await res.blob());
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  return name;
}

/** GET `path` with `params`, or POST `body` as JSON; resolves to the parsed JSON. */
export async function api(path, { params, body } = {}) {
  const url = new URL(path, window.location.origin);
  for (const [k, v] of Object.entries(params || {})) {
    if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, v);
  }
  const init = { headers: { 'X-IHMT-Token': token || '' } };
  if (body !== undefined) {
    init.method = 'POST';
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(url, init);
  } catch {
    throw new ApiError(0, 'offline', 'the IHMT server does not answer: is `ihmt gui` still running?');
  }
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiError(res.status, data.error || 'error', data.message || res.statusText);
  return data;
}

/**
 * Orders overlapping requests of one view, so a slow, older answer never overwrites the
 * newer one the user asked for: `latest(request, onError)` runs `request()` as the view's
 * newest turn and resolves to its answer, or to `undefined` when a newer turn started
 * meanwhile or the request failed. `onError(err)` runs only for the newest turn.
 */
export class Turns {
  constructor() {
    this.n = 0;
  }

  async latest(request, onError) {
    const mine = ++this.n;
    try {
      const value = await request();
      return mine === this.n ? value : undefined;
    } catch (err) {
      if (mine === this.n) onError(err);
      return undefined;
    }
  }
}
