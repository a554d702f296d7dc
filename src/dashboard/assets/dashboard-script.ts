/**
 * The few lines of browser script the dashboard has (no build step: served as written).
 * Live runs follow `/runs/ID/events` (server-sent events); the run's chart draws
 * `/runs/ID/timeline` with uPlot; buttons with `data-confirm` ask first; times are written
 * in the browser's zone. Text from the
 * server goes into the page with `textContent`, never as HTML, except the results section,
 * which the server renders escaped.
 */
export const DASHBOARD_SCRIPT = String.raw`'use strict';
(function () {
  document.addEventListener('click', function (event) {
    var button = event.target.closest('[data-confirm]');
    if (button && !window.confirm(button.getAttribute('data-confirm'))) event.preventDefault();
  });

  function setCounts(scope, counts) {
    scope.querySelectorAll('[data-count]').forEach(function (cell) {
      var n = counts[cell.getAttribute('data-count')] || 0;
      cell.textContent = String(n);
      cell.classList.toggle('bad', n > 0 && cell.getAttribute('data-count') === 'failed');
    });
  }
  // As statusLabel (run-next-step.ts): a completed run with failed or lost rows is not a plain success.
  function setStatus(scope, status, failed, lost) {
    var notSynced = [failed > 0 ? failed + ' failed' : '', lost > 0 ? lost + ' lost' : '']
      .filter(Boolean).join(', ');
    var partial = status === 'completed' && notSynced !== '';
    scope.querySelectorAll('[data-status]').forEach(function (badge) {
      if (badge.tagName !== 'SPAN') return;
      badge.textContent = partial ? 'completed, ' + notSynced : status;
      badge.className = 'badge s-' + (partial ? 'completed-failed' : status.replace(' ', '-'));
    });
  }

  // Times come in UTC (<time datetime title="… UTC">): written here in the browser's zone,
  // the UTC time staying on hover.
  function pad(n) { return String(n).padStart(2, '0'); }
  function localTimes(scope) {
    scope.querySelectorAll('time[datetime]').forEach(function (el) {
      var at = new Date(el.getAttribute('datetime'));
      if (isNaN(at.getTime())) return;
      var zone = '';
      try {
        var part = new Intl.DateTimeFormat(undefined, { timeZoneName: 'short' }).formatToParts(at)
          .find(function (p) { return p.type === 'timeZoneName'; });
        zone = part ? ' ' + part.value : '';
      } catch (e) { zone = ''; }
      el.textContent = at.getFullYear() + '-' + pad(at.getMonth() + 1) + '-' + pad(at.getDate()) + ' ' +
        pad(at.getHours()) + ':' + pad(at.getMinutes()) + ':' + pad(at.getSeconds()) + zone;
      el.setAttribute('data-local', '');
    });
  }
  localTimes(document);

  function follow(runId, onUpdate, onEnd) {
    var source = new EventSource('/runs/' + encodeURIComponent(runId) + '/events');
    source.addEventListener('progress', function (event) { onUpdate(JSON.parse(event.data)); });
    source.addEventListener('end', function (event) { source.close(); onUpdate(JSON.parse(event.data)); onEnd(); });
    source.onerror = function () { if (source.readyState === EventSource.CLOSED) onEnd(); };
  }

  // A text search reads a run a window at a time: a page without a match goes on by itself.
  (function searchOn() {
    var more = document.querySelector('[data-search-on]');
    if (!more) return;
    fetch(more.getAttribute('data-search-on'), { headers: { 'X-Fragment': 'results' } })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (text) {
        var section = document.getElementById('results');
        if (text === null || !section) return;
        section.outerHTML = text;
        searchOn();
      });
  })();

  // The runs list: each run in progress follows its events.
  document.querySelectorAll('table.runs tr[data-run]').forEach(function (row) {
    if (!row.querySelector('.s-running')) return;
    follow(row.getAttribute('data-run'), function (data) {
      setCounts(row, data.totals);
      setStatus(row, data.status, data.totals.failed || 0, data.lost || 0);
    }, function () {});
  });

  // A run's page.
  var run = document.getElementById('run');
  if (run) {
    var runId = run.getAttribute('data-run');
    var lastReload = 0;
    var lastChart = Date.now();
    var reloadResults = function () {
      var section = document.getElementById('results');
      if (!section) return;
      lastReload = Date.now();
      fetch(section.getAttribute('data-results'), { headers: { 'X-Fragment': 'results' } })
        .then(function (response) { return response.ok ? response.text() : null; })
        .then(function (text) { if (text !== null) section.outerHTML = text; });
    };
    var renderPhases = function (data) {
      var box = run.querySelector('[data-phases]');
      if (!box || !data.phases) return;
      box.replaceChildren();
      data.phases.forEach(function (phase) {
        var line = document.createElement('div');
        line.className = 'phase';
        var name = document.createElement('span');
        name.textContent = phase.phase;
        var bar = document.createElement('progress');
        bar.max = Math.max(phase.total, 1);
        bar.value = phase.done;
        var done = document.createElement('span');
        done.textContent = phase.done + ' of ' + phase.total + (phase.failed ? ' (' + phase.failed + ' failed)' : '');
        line.append(name, bar, done);
        box.append(line);
      });
    };
    if (run.getAttribute('data-status') === 'running') {
      var live = document.getElementById('live');
      follow(runId, function (data) {
        live.hidden = data.status !== 'running';
        setStatus(run, data.status, data.totals.failed || 0, data.lost || 0);
        var total = run.querySelector('tr[data-kind=all]');
        Object.keys(data.counts).forEach(function (kind) {
          // A kind whose first result landed after the page was made gets its row.
          if (!total || run.querySelector('tr[data-kind="' + CSS.escape(kind) + '"]')) return;
          var row = total.cloneNode(true);
          row.className = '';
          row.setAttribute('data-kind', kind);
          row.firstElementChild.textContent = kind;
          total.before(row);
        });
        run.querySelectorAll('tr[data-kind]').forEach(function (row) {
          var kind = row.getAttribute('data-kind');
          setCounts(row, kind === 'all' ? data.totals : (data.counts[kind] || {}));
        });
        if (data.phases) renderPhases(data);
        else {
          var bar = run.querySelector('[data-phases] progress');
          if (bar && data.planned) { bar.max = data.planned; bar.value = data.done; }
          var done = run.querySelector('[data-done]');
          if (done) done.textContent = data.done + (data.planned ? ' of ' + data.planned : '');
        }
        var duration = run.querySelector('[data-duration]');
        if (duration) duration.textContent = formatDuration(data.durationMs) + (data.durationNote || '');
        if (Date.now() - lastChart > 5000) { lastChart = Date.now(); drawChart(); }
        var rate = run.querySelector('[data-rate]');
        if (rate) rate.textContent = data.rate === null ? '' : data.rate.toFixed(1) + ' intents/s';
        if (Date.now() - lastReload > 1000) reloadResults();
      }, function () {
        // Ended: the buttons its state now calls for (retry, resume, or neither) and why.
        var actions = document.getElementById('actions');
        if (actions) {
          fetch(actions.getAttribute('data-actions'), { headers: { 'X-Fragment': 'actions' } })
            .then(function (response) { return response.ok ? response.text() : null; })
            .then(function (text) { if (text !== null) actions.outerHTML = text; });
        }
        reloadResults();
        drawChart();
      });
    }
  }

  function formatDuration(ms) {
    if (ms < 1000) return Math.round(ms) + ' ms';
    var s = Math.round(ms / 1000);
    if (s < 60) return s + ' s';
    var m = Math.floor(s / 60);
    if (m < 60) return m + ' min ' + String(s % 60).padStart(2, '0') + ' s';
    return Math.floor(m / 60) + ' h ' + String(m % 60).padStart(2, '0') + ' min';
  }

  // Calls by outcome (docs/dashboard.md, "The failure day"): a colour each, the worst last.
  var CALL_SERIES = [
    ['2xx', '#2e8b57'], ['4xx', '#d98c1f'], ['429', '#8e44ad'],
    ['5xx', '#c0392b'], ['reset', '#7f5539'], ['lost', '#222222'],
  ];
  var MARK_NAMES = { pause: '429 pause', stop: 'stopped', resume: 'resumed' };

  // The time axis as the rest of the page writes times (ISO, 24 h, the browser's zone):
  // uPlot's own labels read ":45.000" for sub-second ticks and "11/28" for dates. Ticks
  // fall on whole seconds; the day is written where it changes, and in the legend.
  var TIME_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400];
  function isoDay(at) { return at.getFullYear() + '-' + pad(at.getMonth() + 1) + '-' + pad(at.getDate()); }
  function clock(at) { return pad(at.getHours()) + ':' + pad(at.getMinutes()) + ':' + pad(at.getSeconds()); }
  var TIME_AXIS = {
    incrs: TIME_STEPS,
    values: function (u, splits) {
      var day = null;
      return splits.map(function (seconds) {
        var at = new Date(seconds * 1000);
        var label = (day === isoDay(at) ? '' : isoDay(at) + ' ') + clock(at);
        day = isoDay(at);
        return label;
      });
    },
  };
  // Room on the right for the last time label, which uPlot centres on the edge.
  var CHART_PADDING = [null, 36, null, null];
  var TIME_SERIES = { label: 'time', value: function (u, seconds) {
    if (seconds == null) return '–';
    var at = new Date(seconds * 1000);
    return isoDay(at) + ' ' + clock(at);
  } };

  function drawChart() {
    var box = document.getElementById('chart');
    if (!box || typeof uPlot === 'undefined') return;
    fetch(box.getAttribute('data-timeline'), { headers: { Accept: 'application/json' } })
      .then(function (response) { return response.json(); })
      .then(function (timeline) {
        box.replaceChildren();
        var width = Math.max(280, box.clientWidth || 600);
        if (timeline.calls && timeline.calls.points.length > 0) return drawCalls(box, timeline.calls, width);
        if (timeline.points.length === 0) { box.textContent = 'No results yet.'; return; }
        var per = timeline.bucketSeconds;
        var xs = timeline.points.map(function (p) { return Date.parse(p.at) / 1000; });
        var requests = timeline.points.map(function (p) { return p.attempts / per; });
        var failed = timeline.points.map(function (p) { return p.failed / per; });
        new uPlot({
          width: width, height: 220, padding: CHART_PADDING,
          series: [TIME_SERIES, { label: 'requests/s', stroke: '#2f6fdf', width: 2 },
                   { label: 'failed/s', stroke: '#c0392b', width: 2 }],
          axes: [TIME_AXIS, { label: 'per second' }],
        }, [xs, requests, failed], box);
      });
  }

  /** Platform calls per second by outcome; pauses, stops and resumes as dashed lines. */
  function drawCalls(box, calls, width) {
    var per = calls.bucketSeconds;
    var xs = calls.points.map(function (p) { return Date.parse(p.at) / 1000; });
    var shown = CALL_SERIES.filter(function (entry) {
      return entry[0] === '2xx' || calls.points.some(function (p) { return (p.calls[entry[0]] || 0) > 0; });
    });
    var data = [xs].concat(shown.map(function (entry) {
      return calls.points.map(function (p) { return (p.calls[entry[0]] || 0) / per; });
    }));
    var marks = calls.marks.map(function (m) { return { x: Date.parse(m.at) / 1000, kind: m.kind, count: m.count }; });
    new uPlot({
      width: width, height: 240, padding: CHART_PADDING,
      series: [TIME_SERIES].concat(shown.map(function (entry) {
        return { label: entry[0] + '/s', stroke: entry[1], width: 2 };
      })),
      axes: [TIME_AXIS, { label: 'platform calls per second' }],
      hooks: { draw: [function (u) {
        var ctx = u.ctx;
        ctx.save();
        ctx.setLineDash([4, 4]);
        marks.forEach(function (m) {
          var x = u.valToPos(m.x, 'x', true);
          ctx.strokeStyle = m.kind === 'pause' ? '#8e44ad' : m.kind === 'stop' ? '#c0392b' : '#2e8b57';
          ctx.beginPath();
          ctx.moveTo(x, u.bbox.top);
          ctx.lineTo(x, u.bbox.top + u.bbox.height);
          ctx.stroke();
        });
        ctx.restore();
      }] },
    }, data, box);
    if (marks.length > 0) {
      var list = document.createElement('p');
      list.className = 'chart-marks';
      list.textContent = 'Marked: ' + marks.map(function (m) {
        var at = new Date(m.x * 1000).toLocaleTimeString();
        return (MARK_NAMES[m.kind] || m.kind) + ' at ' + at + (m.count > 1 ? ' (' + m.count + '×)' : '');
      }).join(' · ');
      box.appendChild(list);
    }
  }
  drawChart();
})();
`;
