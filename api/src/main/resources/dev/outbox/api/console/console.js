'use strict';
/*
 * The operator console: one page on the /ops API.
 *
 * Rules this file keeps, so that it stays safe and readable:
 *  - every value from the server goes into the page as text (el(), textContent), never as HTML;
 *  - the token lives in sessionStorage and travels only in the Authorization header: never in a
 *    URL, a cookie or the page's text;
 *  - the address (#/search?status=PARKED...) holds what is on screen, so a view can be shared,
 *    and the token is never part of it;
 *  - the read-only token sees no action controls (and the API refuses actions to it anyway).
 */
(function () {
  const TOKEN = 'outbox-ops-token';
  const OPERATOR = 'outbox-ops-operator';
  const STATUSES = ['PENDING', 'IN_PROGRESS', 'PUBLISHED', 'RETRYABLE_FAILED', 'PARKED', 'CANCELLED'];
  const ERROR_CODES = ['BROKER_UNAVAILABLE', 'CONNECTION_LOST', 'CONFIRM_TIMEOUT', 'NACKED', 'UNROUTABLE',
    'EXCHANGE_NOT_FOUND', 'ACCESS_REFUSED', 'PAYLOAD_INVALID', 'STALE_LOCK', 'OPERATOR', 'CHANNEL_ERROR',
    'RELAY_DIED', 'UNENCODABLE', 'CONTRACT_UNKNOWN'];
  const FILTERS = ['status', 'errorCode', 'messageType', 'aggregateType', 'aggregateId', 'correlationId',
    'tenantId', 'createdFrom', 'createdTo', 'limit'];
  const REFRESH_MS = 5000;
  /** A row in one of these states is moving by itself: its page follows it every 2 s until it settles. */
  const IN_FLIGHT = ['PENDING', 'IN_PROGRESS', 'RETRYABLE_FAILED'];
  const TEXT_FILTERS = { messageType: 'Message type', aggregateType: 'Aggregate type', aggregateId: 'Aggregate id',
    correlationId: 'Correlation id', tenantId: 'Tenant' };

  const main = document.getElementById('main');
  const notice = document.getElementById('notice');
  const nav = document.getElementById('nav');
  let session = null;
  let refresh = null;
  let generation = 0;
  /** The audit entry of this tab's last action, as its answer named it: marked wherever it is listed. */
  let lastAuditId = null;

  // ---- building the page: text only -----------------------------------------------------------

  /** An element with attributes and children; strings and numbers become text nodes. */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name === 'href' && !String(value).startsWith('#/')) throw new Error('links stay inside the console');
      if (name.startsWith('on')) {
        node.addEventListener(name.slice(2), value);
      } else {
        node.setAttribute(name, value === true ? '' : String(value));
      }
    }
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  /**
   * A view's way to draw: taken before its first request, it draws only if no other view was
   * opened in the meantime (an overview refresh answered late must not cover the page now shown).
   */
  function painter() {
    const mine = generation;
    return (...nodes) => {
      if (mine === generation) main.replaceChildren(...nodes.filter((n) => n !== null && n !== undefined));
    };
  }

  function say(text, kind) {
    notice.textContent = text || '';
    notice.className = kind || '';
  }

  function time(iso) {
    return iso ? new Date(iso).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '-';
  }

  function seconds(s) {
    if (s < 90) return Math.round(s) + ' s';
    if (s < 5400) return Math.round(s / 60) + ' min';
    return (s / 3600).toFixed(1) + ' h';
  }

  function table(headers, rows) {
    return el('div', { class: 'scroll' }, el('table', {},
      el('thead', {}, el('tr', {}, headers.map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, rows.length ? rows : el('tr', {}, el('td', { colspan: headers.length }, 'None.')))));
  }

  /**
   * A status or error code as the server sent it. The lists above are the names this console knows;
   * a newer version may write others, which are shown as they are (styled like any plain status),
   * never blank or "undefined".
   */
  function asText(value) {
    return value === undefined || value === null || value === '' ? '-' : String(value);
  }

  function statusCell(status) {
    return el('td', { class: 'status-' + asText(status) }, asText(status));
  }

  function link(route, query, text) {
    return el('a', { href: '#/' + route + (query ? '?' + new URLSearchParams(query) : '') }, text);
  }

  // ---- the API ---------------------------------------------------------------------------------

  class ApiError extends Error {
    constructor(status, problem) {
      super((problem && (problem.detail || problem.title)) || ('HTTP ' + status));
      this.status = status;
      this.problem = problem;
    }
  }

  async function api(method, path, body) {
    const headers = { Accept: 'application/json', Authorization: 'Bearer ' + sessionStorage.getItem(TOKEN) };
    const operator = sessionStorage.getItem(OPERATOR);
    if (operator) headers['X-Operator'] = operator;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit', cache: 'no-store', redirect: 'error',
    });
    const text = await response.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch (e) {
      data = { detail: text.slice(0, 200) };
    }
    if (response.status === 401) {
      logout('The token was refused: log in again.');
    }
    if (!response.ok) {
      const errors = data && Array.isArray(data.errors)
        ? ': ' + data.errors.map((v) => v.field + ' ' + v.message).join('; ') : '';
      throw new ApiError(response.status, { detail: ((data && (data.detail || data.title)) || '') + errors });
    }
    return data;
  }

  // ---- log in and out --------------------------------------------------------------------------

  function loginView(message) {
    nav.hidden = true;
    const token = el('input', { id: 'token', type: 'password', autocomplete: 'off', required: true });
    const operator = el('input', { id: 'operator', type: 'text', autocomplete: 'username', maxlength: 64,
      pattern: '[A-Za-z0-9._@+\\-]{1,64}' });
    const form = el('form', { class: 'login', 'aria-labelledby': 'login-title' },
      el('h1', { id: 'login-title' }, 'Log in'),
      el('label', { for: 'token' }, 'Operator or read-only token (OUTBOX_OPS_TOKEN, OUTBOX_OPS_READ_TOKEN)', token),
      el('label', { for: 'operator' }, 'Your name, for the audit log (optional)', operator),
      el('button', { type: 'submit', class: 'primary', id: 'login' }, 'Log in'));
    generation++;
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      sessionStorage.setItem(TOKEN, token.value);
      if (operator.value) sessionStorage.setItem(OPERATOR, operator.value);
      else sessionStorage.removeItem(OPERATOR);
      token.value = '';
      await start();
    });
    main.replaceChildren(form);
    say(message, message ? 'error' : '');
    token.focus();
  }

  function logout(message) {
    sessionStorage.removeItem(TOKEN);
    sessionStorage.removeItem(OPERATOR);
    session = null;
    stopRefresh();
    loginView(message);
  }

  async function start() {
    if (!sessionStorage.getItem(TOKEN)) {
      loginView();
      return;
    }
    try {
      session = await api('GET', '/ops/session');
    } catch (e) {
      if (sessionStorage.getItem(TOKEN)) logout(e.message);
      return;
    }
    nav.hidden = false;
    document.getElementById('who').textContent = session.actor + ' (' + session.role + ')';
    say('');
    if (!location.hash || location.hash === '#/') location.hash = '#/overview';
    else route();
  }

  // ---- routing ---------------------------------------------------------------------------------

  function stopRefresh() {
    if (refresh) clearInterval(refresh);
    refresh = null;
  }

  async function route() {
    if (!session) return;
    stopRefresh();
    generation++;
    const hash = location.hash.slice(2);
    const [path, query] = hash.split('?');
    const params = new URLSearchParams(query || '');
    const [page, arg] = path.split('/');
    try {
      if (page === 'search') await searchView(params);
      else if (page === 'row') await rowView(decodeURIComponent(arg || ''));
      else if (page === 'audit') await auditView(params);
      else if (page === 'aggregate') await aggregateView(params.get('type') || '', params.get('id') || '');
      else if (page === 'reconcile') await reconcileView();
      else {
        await overviewView();
        refresh = setInterval(() => overviewView().catch((e) => say(e.message, 'error')), REFRESH_MS);
      }
      main.focus({ preventScroll: true });
      window.scrollTo(0, 0);
    } catch (e) {
      say(e.message, 'error');
    }
  }

  // ---- overview --------------------------------------------------------------------------------

  async function overviewView() {
    const paint = painter();
    const [stats, relays] = await Promise.all([api('GET', '/ops/outbox/stats'), api('GET', '/ops/relays')]);
    // a status a newer version wrote has a card of its own, after the known ones
    const others = Object.keys(Object.assign({}, stats.counts, stats.finished))
      .filter((s) => !STATUSES.includes(s)).sort();
    const cards = el('div', { class: 'cards' },
      STATUSES.concat(others).map((s) => statusCard(s, stats)),
      el('div', { class: 'card' }, el('span', { class: 'value' }, seconds(stats.oldestPendingAgeSeconds)),
        el('span', { class: 'label' }, 'oldest pending')),
      el('div', { class: 'card' }, el('span', { class: 'value' }, String(stats.publishedLastHour)),
        el('span', { class: 'label' }, 'published in the last hour')),
      el('div', { class: 'card' }, el('span', { class: 'value' }, link('reconcile', null, String(stats.blockedAggregates))),
        el('span', { class: 'label' }, 'aggregates blocked behind a parked version')));
    const parked = Object.entries(stats.parkedByErrorCode).sort((a, b) => b[1] - a[1]);
    paint(
      el('h1', {}, 'Overview'),
      cards,
      el('h2', {}, 'Published per minute, last hour'),
      rateChart(stats.publishedPerMinute),
      el('h2', {}, 'Parked, by error code'),
      table(['error code', 'rows'], parked.map(([code, n]) => el('tr', {},
        el('td', {}, link('search', { status: 'PARKED', errorCode: code }, code)), el('td', {}, n)))),
      el('h2', {}, 'Relays'),
      table(['relay', 'alive', 'host', 'pid', 'in flight', 'last heartbeat'], relays.items.map((r) => el('tr', {},
        el('td', { class: 'mono' }, r.relayId), el('td', {}, r.alive ? 'yes' : 'no'), el('td', {}, r.host || '-'),
        el('td', {}, r.pid === null || r.pid === undefined ? '-' : r.pid), el('td', {}, r.inProgress),
        el('td', {}, time(r.heartbeatAt))))),
      el('p', { class: 'label' }, 'Refreshes every ' + REFRESH_MS / 1000 + ' s. Updated ' + time(new Date().toISOString()) + '.'));
  }

  /**
   * One status's card. The unfinished statuses are always counted exactly; the finished ones exactly
   * up to the API's limit and estimated above it, which the card says. A count the API did not send
   * reads "not counted", never 0: at 3 a.m. a 0 that means "unknown" is read as "nothing".
   */
  function statusCard(status, stats) {
    const finished = (stats.finished || {})[status];
    let value;
    let label = status;
    let title;
    if (finished) {
      value = (finished.exact ? '' : '\u2248 ') + finished.count.toLocaleString('en');
      if (!finished.exact) {
        label += ' (estimate)';
        title = 'Too many to count on every refresh: PostgreSQL\'s estimate from its statistics'
          + ' (last VACUUM or ANALYZE of the table).';
      }
    } else if (typeof (stats.counts || {})[status] === 'number') {
      value = stats.counts[status].toLocaleString('en');
    } else {
      value = 'not counted';
    }
    return el('div', { class: 'card', id: 'card-' + status, title },
      el('span', { class: 'value' }, link('search', { status }, value)),
      el('span', { class: 'label' }, label));
  }

  /** Published rows per minute over the last hour as bars, drawn with SVG elements (no markup, no library). */
  function rateChart(perMinute) {
    const NS = 'http://www.w3.org/2000/svg';
    const svg = (tag, attrs, ...children) => {
      const node = document.createElementNS(NS, tag);
      for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
      for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
      return node;
    };
    const width = 600;
    const height = 100;
    const most = Math.max(0, ...perMinute);
    const max = Math.max(1, most); // the scale: an empty hour draws no bars, not a division by zero
    const total = perMinute.reduce((a, b) => a + b, 0);
    const bar = width / perMinute.length;
    const chart = svg('svg', { class: 'chart', viewBox: '0 0 ' + width + ' ' + (height + 18), role: 'img',
      'aria-label': 'Published per minute over the last hour: ' + total + ' in all, at most ' + most + ' in one minute' });
    perMinute.forEach((n, i) => {
      const h = Math.round((n / max) * height);
      chart.append(svg('rect', { x: i * bar + 1, y: height - h, width: Math.max(1, bar - 2), height: h },
        svg('title', {}, (perMinute.length - 1 - i) + ' min ago: ' + n)));
    });
    chart.append(svg('text', { x: 0, y: height + 14 }, '60 min ago'),
      svg('text', { x: width, y: height + 14, 'text-anchor': 'end' }, 'now (most in one minute: ' + most + ')'));
    return chart;
  }

  // ---- search ----------------------------------------------------------------------------------

  /** A filter's choices: the values this console knows, and the one in the address if it is another. */
  function select(name, values, current) {
    const choices = current && !values.includes(current) ? values.concat([current]) : values;
    return el('select', { id: 'f-' + name, name },
      el('option', { value: '' }, 'any'),
      choices.map((v) => el('option', { value: v, selected: v === current }, v)));
  }

  async function searchView(params) {
    const paint = painter();
    const field = (name, type) => el('input', { id: 'f-' + name, name, type: type || 'text', value: params.get(name) || '' });
    const form = el('form', { class: 'filters', 'aria-label': 'Filters' },
      el('label', { for: 'f-status' }, 'Status', select('status', STATUSES, params.get('status'))),
      el('label', { for: 'f-errorCode' }, 'Last error code', select('errorCode', ERROR_CODES, params.get('errorCode'))),
      Object.entries(TEXT_FILTERS).map(([n, label]) => el('label', { for: 'f-' + n }, label, field(n))),
      el('label', { for: 'f-createdFrom' }, 'Created from (ISO-8601)', field('createdFrom')),
      el('label', { for: 'f-createdTo' }, 'Created to (ISO-8601)', field('createdTo')),
      el('label', { for: 'f-limit' }, 'Rows per page', field('limit', 'number')),
      el('button', { type: 'submit', class: 'primary' }, 'Search'));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const q = new URLSearchParams();
      for (const name of FILTERS) {
        const v = form.elements[name].value.trim();
        if (v) q.set(name, v);
      }
      location.hash = '#/search?' + q;
    });
    const query = new URLSearchParams();
    for (const name of FILTERS.concat(['after'])) if (params.get(name)) query.set(name, params.get(name));
    const page = await api('GET', '/ops/outbox?' + query);
    const next = new URLSearchParams(params);
    if (page.next) next.set('after', page.next);
    paint(
      el('h1', {}, 'Search'),
      form,
      session.canWrite && ['PARKED', 'RETRYABLE_FAILED'].includes(params.get('status') || '') ? bulkRetry(params) : null,
      el('h2', {}, page.items.length + ' row(s)' + (params.get('after') ? ' (a later page)' : '')),
      rowsTable(page.items),
      page.next ? el('p', {}, el('a', { href: '#/search?' + next, id: 'next-page' }, 'Next page')) : null);
  }

  function rowsTable(items) {
    return table(['id', 'status', 'type', 'aggregate', 'version', 'attempts', 'last error', 'created'],
      items.map((r) => el('tr', {},
        el('td', { class: 'mono' }, link('row/' + encodeURIComponent(r.id), null, r.id)),
        statusCell(r.status),
        el('td', {}, r.messageType),
        el('td', { class: 'mono' }, link('aggregate', { type: r.aggregateType, id: r.aggregateId },
          r.aggregateType + '/' + r.aggregateId)),
        el('td', {}, r.aggregateVersion === null || r.aggregateVersion === undefined ? '-' : r.aggregateVersion),
        el('td', {}, r.attemptCount),
        el('td', {}, r.lastErrorCode || '-'),
        el('td', {}, time(r.createdAt)))));
  }

  /**
   * Retry every row the search's filter matches: first the dry run says how many, then the operator
   * confirms with a reason. The API's filter needs an error code, a message type or a time range.
   */
  function bulkRetry(params) {
    const filter = { status: params.get('status') };
    for (const name of ['errorCode', 'messageType', 'createdFrom', 'createdTo']) {
      if (params.get(name)) filter[name] = params.get(name);
    }
    if (Object.keys(filter).length === 1) {
      return el('p', { id: 'bulk-hint' }, 'To retry many at once, narrow the search by error code, message type'
        + ' or creation time.');
    }
    const box = el('section', { 'aria-labelledby': 'bulk-title' }, el('h2', { id: 'bulk-title' }, 'Retry all that match'));
    const check = el('button', { type: 'button', id: 'bulk-dry-run' }, 'Count them first');
    check.addEventListener('click', async () => {
      try {
        const dry = await api('POST', '/ops/outbox/retry', Object.assign({ dryRun: true }, filter));
        const reason = el('input', { id: 'bulk-reason', type: 'text', maxlength: 500 });
        const confirm = el('button', { type: 'button', class: 'primary', id: 'bulk-confirm' },
          'Retry ' + Math.min(dry.matched, 500) + ' row(s)');
        confirm.addEventListener('click', async () => {
          try {
            const done = await api('POST', '/ops/outbox/retry',
              Object.assign({ dryRun: false, reason: reason.value.trim() || undefined }, filter));
            // the entry this retry wrote, from its own answer: the latest entry may be another operator's
            lastAuditId = done.audit.id;
            box.replaceChildren(el('h2', { id: 'bulk-title' }, 'Retry all that match'),
              el('p', { id: 'bulk-result' }, done.retried + ' row(s) retried, ' + done.remaining
                + ' still matching (the list below is from before the retry). Its audit entry:'),
              auditTable([done.audit]));
            say(done.retried + ' row(s) retried.', 'ok');
          } catch (e) {
            say('bulk retry refused: ' + e.message, 'error');
          }
        });
        box.replaceChildren(el('h2', { id: 'bulk-title' }, 'Retry all that match'),
          el('p', { id: 'bulk-count' }, dry.matched + ' row(s) match ' + JSON.stringify(filter) + '.'),
          el('div', { class: 'actions' }, el('label', { for: 'bulk-reason' }, 'Reason', reason), confirm));
        reason.focus();
      } catch (e) {
        say('dry run refused: ' + e.message, 'error');
      }
    });
    box.append(el('div', { class: 'actions' }, check));
    return box;
  }

  // ---- one aggregate ---------------------------------------------------------------------------

  /** Every version of one aggregate, oldest first: a parked version and the ones waiting behind it. */
  async function aggregateView(type, id) {
    const paint = painter();
    const page = await api('GET', '/ops/outbox?' + new URLSearchParams({ aggregateType: type, aggregateId: id, limit: '500' }));
    const rows = page.items.slice().sort((a, b) =>
      (a.aggregateVersion ?? 0) - (b.aggregateVersion ?? 0) || a.createdAt.localeCompare(b.createdAt));
    paint(
      el('h1', {}, 'Aggregate ', el('span', { class: 'mono' }, type + '/' + id)),
      el('p', {}, 'Every version, oldest first. A version is published only after every earlier one was;'
        + ' a parked version holds back all that follow it.'),
      table(['version', 'status', 'type', 'attempts', 'last error', 'created', 'id'], rows.map((r) => el('tr', {},
        el('td', {}, r.aggregateVersion ?? '-'),
        statusCell(r.status),
        el('td', {}, r.messageType),
        el('td', {}, r.attemptCount),
        el('td', {}, r.lastErrorCode || '-'),
        el('td', {}, time(r.createdAt)),
        el('td', { class: 'mono' }, link('row/' + encodeURIComponent(r.id), null, r.id))))),
      page.next ? el('p', {}, 'More than 500 rows: the oldest are shown; search for the rest.') : null,
      session.canWrite ? replayAggregate(type, id) : null);
  }

  /** Publishes every published version of the aggregate again, in order, under the same ids. */
  function replayAggregate(type, id) {
    const reason = el('input', { id: 'replay-reason', type: 'text', maxlength: 500 });
    const button = el('button', { type: 'button', id: 'replay-aggregate' }, 'Replay every published version');
    const box = el('section', { 'aria-labelledby': 'replay-title' }, el('h2', { id: 'replay-title' }, 'Replay'),
      el('p', {}, 'Consumers deduplicate on the message id: a replay reaches only those that lost their copy.'),
      el('div', { class: 'actions' }, el('label', { for: 'replay-reason' }, 'Reason', reason), button));
    button.addEventListener('click', async () => {
      try {
        const done = await api('POST', '/ops/outbox/replay-aggregate',
          { aggregateType: type, aggregateId: id, reason: reason.value.trim() || undefined });
        lastAuditId = done.audit.id;
        box.replaceChildren(el('h2', { id: 'replay-title' }, 'Replay'),
          el('p', { id: 'replay-result' }, done.affected + ' version(s) queued to publish again. Its audit entry:'),
          auditTable([done.audit]));
        say(done.affected + ' version(s) replayed.', 'ok');
      } catch (e) {
        say('replay refused: ' + e.message, 'error');
      }
    });
    return box;
  }

  // ---- reconcile -------------------------------------------------------------------------------

  async function reconcileView() {
    const paint = painter();
    const r = await api('GET', '/ops/outbox/reconcile');
    const aggregate = (type, id) => link('aggregate', { type, id }, type + '/' + id);
    paint(
      el('h1', {}, 'Reconcile'),
      el('p', { id: 'reconcile-verdict', class: r.ok ? 'status-PUBLISHED' : 'error' },
        r.ok ? 'OK: nothing needs a person.' : 'Something needs a person: see below.'),
      el('h2', {}, 'Aggregates blocked behind a parked version'),
      table(['aggregate', 'parked version', 'error code', 'waiting'], r.blockedAggregates.map((b) => el('tr', {},
        el('td', { class: 'mono' }, aggregate(b.aggregateType, b.aggregateId)),
        el('td', {}, link('row/' + encodeURIComponent(b.parkedId), null, 'version ' + b.parkedVersion)),
        el('td', {}, b.errorCode || '-'), el('td', {}, b.waiting)))),
      el('h2', {}, 'Orders whose latest change has no outbox row'),
      table(['order', 'order version', 'last outbox version'], r.ordersMissingEvents.map((o) => el('tr', {},
        el('td', { class: 'mono' }, aggregate('order', o.orderId)), el('td', {}, o.orderVersion),
        el('td', {}, o.lastOutboxVersion ?? '-')))),
      el('h2', {}, 'Leases held past their expiry'),
      table(['row', 'type', 'held by', 'since', 'attempts'], r.expiredLeases.map((l) => el('tr', {},
        el('td', { class: 'mono' }, link('row/' + encodeURIComponent(l.id), null, l.id)), el('td', {}, l.messageType),
        el('td', {}, l.lockedBy), el('td', {}, time(l.lockedAt)), el('td', {}, l.attemptCount)))),
      el('h2', {}, 'Consumers waiting for a version that has not come'),
      table(['consumer', 'aggregate', 'waiting for', 'held', 'since'], r.waitingConsumers.map((w) => el('tr', {},
        el('td', {}, w.consumerName), el('td', { class: 'mono' }, aggregate(w.aggregateType, w.aggregateId)),
        el('td', {}, 'version ' + w.waitingForVersion), el('td', {}, w.held), el('td', {}, time(w.heldSince))))),
      el('h2', {}, 'Side effects started and never finished'),
      table(['consumer', 'message', 'effect', 'started'], r.pendingSideEffects.map((e) => el('tr', {},
        el('td', {}, e.consumerName), el('td', { class: 'mono' }, e.messageId), el('td', {}, e.effect),
        el('td', {}, time(e.startedAt))))));
  }

  // ---- one row ---------------------------------------------------------------------------------

  async function rowView(id) {
    const paint = painter();
    const [row, audit] = await Promise.all([
      api('GET', '/ops/outbox/' + encodeURIComponent(id)),
      api('GET', '/ops/audit?' + new URLSearchParams({ messageId: id, limit: '20' })),
    ]);
    const fields = [
      ['status', el('span', { class: 'status-' + asText(row.status), id: 'row-status' }, asText(row.status))],
      ['message type', row.messageType + ' v' + row.messageVersion],
      ['aggregate', link('aggregate', { type: row.aggregateType, id: row.aggregateId },
        row.aggregateType + '/' + row.aggregateId + ' (every version)')],
      ['aggregate version', row.aggregateVersion ?? '-'],
      ['exchange / routing key', row.exchange + ' / ' + row.routingKey],
      ['attempts', row.attemptCount],
      ['next attempt', time(row.nextAttemptAt)],
      ['last error', el('span', { id: 'row-error' }, row.lastErrorCode ? row.lastErrorCode + ': ' + (row.lastErrorMessage || '') : '-')],
      ['lease', row.lease ? row.lease.lockedBy + ' since ' + time(row.lease.lockedAt) + ', expires ' + time(row.lease.expiresAt) : '-'],
      ['blocked by', row.blockedBy
        ? el('span', {}, link('row/' + encodeURIComponent(row.blockedBy.id), null, 'version ' + row.blockedBy.aggregateVersion),
          ' (' + asText(row.blockedBy.status) + (row.blockedBy.lastErrorCode ? ', ' + row.blockedBy.lastErrorCode : '') + ')')
        : '-'],
      ['created', time(row.createdAt)],
      ['published', time(row.publishedAt)],
      ['correlation id', row.correlationId || '-'],
      ['causation id', row.causationId || '-'],
      ['trace id', row.traceId || '-'],
      ['tenant', row.tenantId || '-'],
    ];
    const payload = row.payload !== undefined && row.payload !== null
      ? el('pre', { id: 'payload' }, JSON.stringify(row.payload, null, 2))
      : el('p', { id: 'payload-hidden' }, 'Payload hidden from the read-only token: ' + row.payloadBytes
        + ' bytes, sha256 ', el('span', { class: 'mono' }, row.payloadSha256), '.');
    const rowActions = session.canWrite ? await consoleActions() : [];
    paint(
      el('h1', {}, 'Message ', el('span', { class: 'mono' }, row.id)),
      el('dl', { class: 'fields' }, fields.map(([k, v]) => [el('dt', {}, k), el('dd', {}, v)])),
      session.canWrite ? actions(row, rowActions) : null,
      el('h2', {}, 'Headers'),
      el('pre', { id: 'headers' }, JSON.stringify(row.headers, null, 2)),
      el('h2', {}, 'Payload'),
      payload,
      el('h2', {}, 'Audit'),
      auditTable(audit.items));
    if (IN_FLIGHT.includes(row.status)) {
      // a parked or finished row stays still, so a reason being typed is never wiped by a redraw
      const mine = generation;
      setTimeout(() => {
        if (mine === generation) rowView(id).catch((e) => say(e.message, 'error'));
      }, 2000);
    }
  }

  // The row actions are the API's own: every POST /ops/outbox/{id}/<verb> that /openapi.json marks
  // with x-console (its label, whether it needs the reason, its place) becomes a button, so a new
  // operator action appears here without an edit to this file.
  let consoleActionsCache = null;
  async function consoleActions() {
    if (!consoleActionsCache) {
      const response = await fetch('/openapi.json', { credentials: 'omit', cache: 'no-store', redirect: 'error' });
      if (!response.ok) throw new Error('the API description is unavailable (' + response.status + ')');
      const doc = await response.json();
      consoleActionsCache = Object.entries(doc.paths)
        .map(([path, item]) => [/^\/ops\/outbox\/\{id\}\/([a-z-]+)$/.exec(path), item.post])
        .filter(([match, post]) => match && post && post['x-console'])
        .map(([match, post]) => ({
          verb: match[1],
          label: post['x-console'].label,
          danger: post['x-console'].style === 'danger',
          needsReason: post['x-console'].needs === 'reason',
          order: Number(post['x-console'].order || 99),
        }))
        .sort((a, b) => a.order - b.order);
    }
    return consoleActionsCache;
  }

  function actions(row, rowActions) {
    const reason = el('input', { id: 'reason', type: 'text', maxlength: 500 });
    const run = (action, needsReason) => async () => {
      if (needsReason && !reason.value.trim()) {
        say('A reason is required to ' + action + ' a message.', 'error');
        reason.focus();
        return;
      }
      try {
        const result = await api('POST', '/ops/outbox/' + encodeURIComponent(row.id) + '/' + action,
          reason.value.trim() ? { reason: reason.value.trim() } : {});
        // the row's audit list may hold other operators' entries too: the one this action wrote is marked
        lastAuditId = result.audit.id;
        await rowView(row.id);
        say(action + ': ' + result.affected + ' row(s) changed; its audit entry (#' + result.audit.id
          + ') is marked below.', 'ok');
      } catch (e) {
        say(action + ' refused: ' + e.message, 'error');
      }
    };
    const needing = rowActions.filter((a) => a.needsReason).map((a) => a.label.toLowerCase());
    return el('section', { 'aria-labelledby': 'actions-title' },
      el('h2', { id: 'actions-title' }, 'Actions'),
      el('div', { class: 'actions' },
        el('label', { for: 'reason' }, 'Reason (required to ' + needing.join(' and to ') + ')', reason),
        rowActions.map((a) => el('button', {
          type: 'button', id: 'action-' + a.verb, class: a.danger ? 'danger' : undefined,
          onclick: run(a.verb, a.needsReason) }, a.label))));
  }

  // ---- audit log -------------------------------------------------------------------------------

  function auditTable(items) {
    return table(['when', 'who', 'role', 'action', 'messages', 'reason', 'rows'], items.map((a) => el('tr', {
      class: a.id === lastAuditId ? 'audit-entry mine' : 'audit-entry', 'data-audit-id': a.id,
      title: a.id === lastAuditId ? 'written by your last action' : undefined },
      el('td', {}, time(a.at)),
      el('td', {}, a.actor),
      el('td', {}, a.role),
      el('td', {}, a.action),
      el('td', { class: 'mono' }, (a.messageIds || []).slice(0, 5).map((id) =>
        el('div', {}, link('row/' + encodeURIComponent(id), null, id))),
        (a.messageIds || []).length > 5 ? el('div', {}, '+' + (a.messageIds.length - 5) + ' more') : null),
      el('td', {}, a.reason || '-'),
      el('td', {}, a.affected))));
  }

  async function auditView(params) {
    const paint = painter();
    const query = new URLSearchParams({ limit: '50' });
    if (params.get('after')) query.set('after', params.get('after'));
    const page = await api('GET', '/ops/audit?' + query);
    paint(
      el('h1', {}, 'Audit log'),
      auditTable(page.items),
      page.next ? el('p', {}, link('audit', { after: page.next }, 'Older entries')) : null);
  }

  document.getElementById('logout').addEventListener('click', () => logout('Logged out.'));
  window.addEventListener('hashchange', route);
  start();
})();
