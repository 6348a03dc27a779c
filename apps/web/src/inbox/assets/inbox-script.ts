/**
 * The inbox's one script, served as /inbox/assets/inbox-<hash>.js (the Content-Security-Policy
 * allows scripts of this origin only, none inline). Progressive enhancement: every page works
 * without it. It
 * - polls the list for new and changed requests every few seconds and puts their rows in place,
 *   updating the counts and announcing arrivals to screen readers;
 * - marks requests not yet opened in this browser as new (the opened versions are kept in
 *   localStorage: no patient data, only Task ids and version numbers);
 * - keeps the "how long ago" times current;
 * - on the answer form, makes the note required for the answers that need one, and moves the focus
 *   to an error summary;
 * - on the beds page, warns before leaving with bed counts typed but not saved;
 * - on the hospital's request pages, puts the clinics' new answers in place as they arrive;
 * - on the sandbox's webhook inspector, puts new deliveries on top of the list as they arrive.
 *
 * Plain ES2020 in a string: the gateway is bundled for Node, and this is the browser's code.
 */
export const INBOX_SCRIPT = String.raw`(function () {
  'use strict';
  var POLL_MS = 5000;
  var OPENED_KEY = 'inbox.opened';
  var MAX_REMEMBERED = 5000;

  function readOpened() {
    try {
      var value = JSON.parse(window.localStorage.getItem(OPENED_KEY) || '{}');
      return value && typeof value === 'object' ? value : {};
    } catch (error) {
      return {};
    }
  }

  function rememberOpened(taskId, version) {
    var opened = readOpened();
    opened[taskId] = version;
    var ids = Object.keys(opened);
    if (ids.length > MAX_REMEMBERED) ids.slice(0, ids.length - MAX_REMEMBERED).forEach(function (id) { delete opened[id]; });
    try {
      window.localStorage.setItem(OPENED_KEY, JSON.stringify(opened));
    } catch (error) {
      // storage full or disabled: the marker is a convenience
    }
  }

  function markNew(row, opened) {
    // A row the server marked (data-seen: what the clinic's people opened, docs/inbox.md) keeps its mark.
    var seen = row.getAttribute('data-seen');
    var isNew = row.getAttribute('data-status') !== 'cancelled' && (seen !== null ? seen !== 'true' : opened[row.getAttribute('data-task-id')] !== Number(row.getAttribute('data-version')));
    row.classList.toggle('is-new', isNew);
    var badge = row.querySelector('.new-badge');
    if (badge) badge.hidden = !isNew;
  }

  var relative = window.Intl && Intl.RelativeTimeFormat ? new Intl.RelativeTimeFormat(document.documentElement.lang || 'de', { numeric: 'auto' }) : null;
  function ago(iso) {
    var seconds = Math.round((Date.parse(iso) - Date.now()) / 1000);
    var steps = [['second', 60], ['minute', 60], ['hour', 24], ['day', 30], ['month', 12]];
    var value = seconds;
    for (var i = 0; i < steps.length; i++) {
      if (Math.abs(value) < steps[i][1]) return relative.format(steps[i][0] === 'second' ? Math.min(value, 0) : value, steps[i][0]);
      value = Math.trunc(value / steps[i][1]);
    }
    return relative.format(value, 'year');
  }
  function refreshTimes(root) {
    if (!relative) return;
    root.querySelectorAll('.task-row time[datetime]').forEach(function (element) {
      element.textContent = ago(element.getAttribute('datetime'));
    });
  }

  // A poll of the page's own JSON: null when there is nothing to show (an error: the next poll tries
  // again), and the login when the session is over.
  function pollJson(url, login) {
    return fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin', cache: 'no-store' }).then(function (response) {
      if (response.status === 401) {
        window.location.assign(login + '?expired=1');
        return null;
      }
      return response.ok ? response.json() : null;
    });
  }

  function placeRow(tbody, row) {
    if (row.classList.contains('is-open')) {
      tbody.insertBefore(row, tbody.firstElementChild);
      return;
    }
    var firstAnswered = tbody.querySelector('tr.task-row:not(.is-open)');
    tbody.insertBefore(row, firstAnswered);
  }

  function startList(table) {
    var tbody = table.tBodies[0];
    var status = document.getElementById('live-status');
    var empty = document.getElementById('empty-list');
    var cursor = table.getAttribute('data-cursor');
    var url = table.getAttribute('data-updates');
    var filter = table.getAttribute('data-filter');
    var opened = readOpened();
    tbody.querySelectorAll('tr.task-row').forEach(function (row) { markNew(row, opened); });
    if (!url) return;
    var busy = false;

    function poll() {
      if (busy || document.hidden) return;
      busy = true;
      var query = '?filter=' + encodeURIComponent(filter) + '&since=' + encodeURIComponent(cursor);
      pollJson(url + query, '/inbox/login')
        .then(function (update) {
          if (!update) return;
          cursor = update.cursor;
          var arrived = 0;
          var opened = readOpened();
          update.rows.forEach(function (entry) {
            var existing = tbody.querySelector('tr[data-task-id="' + entry.id + '"]');
            var known = existing && existing.getAttribute('data-version') === String(entry.version) && existing.getAttribute('data-status') === entry.status;
            if (existing) existing.remove();
            if (!entry.inFilter) return;
            var template = document.createElement('template');
            template.innerHTML = entry.html.trim();
            var row = template.content.firstElementChild;
            markNew(row, opened);
            placeRow(tbody, row);
            if (!known) arrived += 1;
          });
          Object.keys(update.counts).forEach(function (name) {
            var count = document.querySelector('[data-count="' + name + '"]');
            if (count) count.textContent = String(update.counts[name]);
          });
          if (empty) empty.hidden = tbody.rows.length > 0;
          if (arrived > 0 && status) status.textContent = (arrived === 1 ? status.getAttribute('data-one') : status.getAttribute('data-many').replace('{n}', String(arrived)));
        })
        .catch(function () {
          // offline or the gateway restarting: the next poll tries again
        })
        .then(function () {
          busy = false;
        });
    }
    window.setInterval(poll, POLL_MS);
    document.addEventListener('visibilitychange', function () {
      if (!document.hidden) poll();
    });
    window.setInterval(function () { refreshTimes(table); }, 60000);
  }

  function startAnswerForm(form) {
    var note = form.querySelector('#note');
    function update() {
      var chosen = form.querySelector('input[name="businessStatus"]:checked');
      var required = !!chosen && chosen.getAttribute('data-note-required') === 'true';
      note.required = required;
      note.setAttribute('aria-required', required ? 'true' : 'false');
    }
    form.querySelectorAll('input[name="businessStatus"]').forEach(function (radio) { radio.addEventListener('change', update); });
    update();
  }

  // The beds page: numbers typed but not saved are not lost without a warning. Its buttons all save
  // them (one form); leaving by a link, the range form or closing the tab asks first.
  function startBedsForm(form) {
    var submitting = false;
    function unsaved() {
      var inputs = form.querySelectorAll('table.beds input[type="number"]');
      for (var i = 0; i < inputs.length; i++) {
        if (inputs[i].value !== inputs[i].defaultValue || inputs[i].hasAttribute('data-unsaved')) return true;
      }
      return false;
    }
    form.addEventListener('submit', function () { submitting = true; });
    window.addEventListener('beforeunload', function (event) {
      if (submitting || !unsaved()) return;
      event.preventDefault();
      event.returnValue = form.getAttribute('data-unsaved') || '';
    });
    // Back from the browser's cache: the form was submitted before, and is a new page now.
    window.addEventListener('pageshow', function () { submitting = false; });
  }

  // A page that follows a state (the hospital's requests: docs/workspace.md): asks every few seconds
  // whether it changed, puts the changed parts (elements with data-live-part, by id) in place and
  // says so to screen readers; the focus and the rest of the page stay.
  function startLivePage(root) {
    var url = root.getAttribute('data-updates');
    var changedAt = root.getAttribute('data-changed-at') || '';
    var status = document.getElementById('live-changes');
    var busy = false;
    function poll() {
      if (busy || document.hidden) return;
      busy = true;
      pollJson(url + (url.indexOf('?') < 0 ? '?' : '&') + 'since=' + encodeURIComponent(changedAt), root.getAttribute('data-login'))
        .then(function (update) {
          if (!update || !update.parts) return;
          changedAt = update.changedAt;
          Object.keys(update.parts).forEach(function (id) {
            var part = document.getElementById(id);
            var template = document.createElement('template');
            template.innerHTML = update.parts[id].trim();
            if (part && template.content.firstElementChild) part.replaceWith(template.content.firstElementChild);
          });
          if (status) status.textContent = status.getAttribute('data-changed');
        })
        .catch(function () {
          // offline or the gateway restarting: the next poll tries again
        })
        .then(function () {
          busy = false;
        });
    }
    window.setInterval(poll, POLL_MS);
    document.addEventListener('visibilitychange', function () {
      if (!document.hidden) poll();
    });
  }

  // The webhook inspector (a sandbox's: docs/workspace.md): every 1.5 s the deliveries after the
  // newest shown, put on top (opened ones stay open), and the failures left.
  function startDeliveryLog(list) {
    var url = list.getAttribute('data-updates');
    var cursor = list.getAttribute('data-cursor') || '0';
    var status = document.getElementById('delivery-status');
    var empty = document.getElementById('no-deliveries');
    var busy = false;
    function poll() {
      if (busy || document.hidden) return;
      busy = true;
      pollJson(url + '?since=' + encodeURIComponent(cursor), list.getAttribute('data-login'))
        .then(function (update) {
          if (!update) return;
          cursor = String(update.cursor);
          update.rows.slice().reverse().forEach(function (entry) {
            if (document.getElementById('delivery-' + entry.id)) return;
            var template = document.createElement('template');
            template.innerHTML = entry.html.trim();
            if (template.content.firstElementChild) list.insertBefore(template.content.firstElementChild, list.firstElementChild);
          });
          while (list.children.length > Number(list.getAttribute('data-kept') || 200)) list.removeChild(list.lastElementChild);
          var fail = document.getElementById('fail-state');
          var template = document.createElement('template');
          template.innerHTML = update.failState.trim();
          var next = template.content.firstElementChild;
          if (fail && next && fail.outerHTML !== next.outerHTML) fail.replaceWith(next);
          if (empty) empty.hidden = list.children.length > 0;
          var arrived = update.rows.length;
          if (arrived > 0 && status) status.textContent = arrived === 1 ? status.getAttribute('data-one') : status.getAttribute('data-many').replace('{n}', String(arrived));
        })
        .catch(function () {
          // offline or the web app restarting: the next poll tries again
        })
        .then(function () {
          busy = false;
        });
    }
    window.setInterval(poll, 1500);
    document.addEventListener('visibilitychange', function () {
      if (!document.hidden) poll();
    });
  }

  document.addEventListener('DOMContentLoaded', function () {
    var deliveries = document.getElementById('delivery-log');
    if (deliveries) startDeliveryLog(deliveries);
    var live = document.getElementById('live-page');
    if (live) startLivePage(live);
    var beds = document.getElementById('beds-form');
    if (beds) startBedsForm(beds);
    var table = document.getElementById('task-list');
    if (table) startList(table);
    var title = document.getElementById('task-title');
    if (title && title.getAttribute('data-version') !== '0') rememberOpened(title.getAttribute('data-task-id'), Number(title.getAttribute('data-version')));
    var form = document.getElementById('answer-form');
    if (form) startAnswerForm(form);
    // A refused form comes back with its summary of what to correct: the focus goes there first.
    var errors = document.getElementById('answer-errors') || document.querySelector('.error-summary[tabindex]');
    if (errors) errors.focus();
  });
})();
`;
