package dev.backoff.sim;

import java.util.List;

/**
 * Self-contained HTML reports that open offline: the data is embedded as JSON and a small inline script of
 * our own draws the charts as SVG (no library, no network). Stateless.
 */
public final class HtmlReport {
  private HtmlReport() {}

  /**
   * A report of a simulation: goodput and timeouts over time per policy with the fault windows shaded,
   * server concurrency and latency (log scale), client p99 latency, and the summary table.
   */
  public static String simulation(SimulationResult result) {
    Scenario scenario = result.scenario();
    Json data = Json.compact().object().field("kind").string("simulation").field("faults").array();
    for (Scenario.Window window : scenario.disturbanceWindows()) {
      data.array().decimal(window.startNanos() / 1e9, 3).decimal(window.endNanos() / 1e9, 3).endArray();
    }
    data.endArray().field("faultNames").array();
    for (Fault fault : scenario.faults) {
      data.string(fault.toString());
    }
    data.endArray().field("scenario").string(describe(scenario)).field("policies").array();
    for (PolicyResult policy : result.policies()) {
      Summary s = policy.summary();
      data.object().field("name").string(policy.name())
          .field("summary").object()
          .field("baselineGoodput").decimal(s.baselineGoodput(), 2)
          .field("goodputAfterFault").decimal(s.goodputAfterFault(), 2)
          .field("recovered").bool(s.recovered())
          .field("verdict").string(s.verdict().label())
          .field("verdictReason").string(s.reason())
          .field("recoverySeconds").number(s.recoverySeconds())
          .field("peakConcurrency").number(s.peakConcurrency())
          .field("amplification").decimal(s.amplification(), 3)
          .field("successRatio").decimal(s.successRatio(), 4)
          .field("unfinishedRequests").number(s.unfinishedRequests())
          .field("p99SuccessLatencySeconds").decimal(s.p99SuccessLatencySeconds(), 4)
          .endObject();
      List<Second> series = policy.series();
      appendArray(data, "goodput", series, x -> (double) x.goodput(), 0);
      appendArray(data, "timeouts", series, x -> (double) x.timeouts(), 0);
      appendArray(data, "errors", series, x -> (double) x.errors(), 0);
      appendArray(data, "attempts", series, x -> (double) x.attempts(), 0);
      appendArray(data, "concurrency", series, x -> (double) x.concurrency(), 0);
      appendArray(data, "latency", series, Second::latencySeconds, 4);
      appendArray(data, "p99", series, Second::clientP99Seconds, 4);
      if (policy.usesBreaker()) {
        appendProtection(data, "breakerOpen", policy.protection(), Protection::breakerOpen, 3);
        appendProtection(data, "refused", policy.protection(), x -> (double) x.refused(), 0);
      }
      if (policy.usesAdaptive()) {
        appendProtection(data, "limiterFillRate", policy.protection(), Protection::limiterFillRate, 2);
        appendProtection(data, "limiterRefused", policy.protection(), x -> (double) x.limiterRefused(), 0);
      }
      if (policy.usesHedging()) {
        appendProtection(data, "hedgesSent", policy.protection(), x -> (double) x.hedgesSent(), 0);
        appendProtection(data, "hedgesInFlight", policy.protection(), x -> (double) x.hedgesInFlight(), 0);
      }
      if (policy.usesConcurrencyLimiter()) {
        appendProtection(data, "concurrencyLimit", policy.protection(), x -> (double) x.concurrencyLimit(), 0);
        appendProtection(data, "concurrencyRefusedFirst", policy.protection(),
            x -> (double) x.concurrencyRefusedFirst(), 0);
        appendProtection(data, "concurrencyRefusedRetries", policy.protection(),
            x -> (double) x.concurrencyRefusedRetries(), 0);
      }
      data.endObject();
    }
    data.endArray().endObject();
    return page("Retry-storm simulation", data.toString());
  }

  /** A report of the contention scenario: write calls and completion time against N, per strategy. */
  public static String contention(List<Contention.Row> rows) {
    Json data = Json.compact().object().field("kind").string("contention").field("rows").array();
    for (Contention.Row row : rows) {
      data.object().field("strategy").string(row.strategy()).field("clients").number(row.clients())
          .field("calls").decimal(row.calls(), 2).field("timeMs").decimal(row.timeMs(), 2).endObject();
    }
    data.endArray().endObject();
    return page("Optimistic-concurrency contention", data.toString());
  }

  private interface Field {
    double of(Second second);
  }

  private static void appendArray(Json out, String name, List<Second> series, Field field, int decimals) {
    out.field(name).array();
    for (Second second : series) {
      out.decimal(field.of(second), decimals);
    }
    out.endArray();
  }

  private interface ProtectionField {
    double of(Protection second);
  }

  private static void appendProtection(Json out, String name, List<Protection> series, ProtectionField field,
      int decimals) {
    out.field(name).array();
    for (Protection second : series) {
      out.decimal(field.of(second), decimals);
    }
    out.endArray();
  }

  private static String describe(Scenario s) {
    StringBuilder text = new StringBuilder();
    text.append(s.closedLoop ? s.clients + " closed-loop clients, think time mean " + Values.human(s.thinkMeanNanos)
        : "open loop, " + Values.format(s.rateProfile.rate, 1) + " req/s (" + s.textOf("rate-profile") + ")");
    text.append(", timeout ").append(Values.human(s.timeoutNanos)).append("; ").append(s.textOf("server"))
        .append(" server; faults: ").append(s.faults.isEmpty() ? "none" : s.faults.toString())
        .append("; ").append(s.seconds()).append("s; seed ").append(s.seed);
    return text.toString();
  }

  private static String page(String title, String json) {
    // "</" never appears inside the JSON: Json escapes '<' in every string; numbers and keys have none.
    return TEMPLATE.replace("__TITLE__", title).replace("__DATA__", json);
  }

  private static final String TEMPLATE = """
      <!DOCTYPE html>
      <html lang="en"><head><meta charset="utf-8"><title>__TITLE__</title>
      <style>
      body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}
      h1{font-size:20px} h2{font-size:16px;margin:20px 0 4px}
      .charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:16px}
      figure{margin:0;border:1px solid #ddd;border-radius:6px;padding:8px}
      figcaption{font-weight:600;margin-bottom:4px}
      table{border-collapse:collapse;margin-top:8px} td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}
      td:first-child,th:first-child{text-align:left} .no{color:#b00020;font-weight:600} .yes{color:#1b7f3a;font-weight:600}
      svg text{font:11px system-ui,sans-serif;fill:#444}
      </style></head>
      <body>
      <h1>__TITLE__</h1>
      <p id="scenario"></p>
      <div id="summary"></div>
      <p>recovered: yes when goodput came back to at least 90% of its baseline before the fault and stayed there;
      otherwise why not (NO, late, not observed, down before the fault, ...). p99 latency counts only the
      requests that succeeded; - where the run has no such number.</p>
      <div class="charts" id="charts"></div>
      <script id="data" type="application/json">__DATA__</script>
      <script>
      (function () {
        var NS = 'http://www.w3.org/2000/svg';
        var COLORS = ['#d62728', '#1f77b4', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf'];
        var data = JSON.parse(document.getElementById('data').textContent);
        var drawn = 0;
        function el(name, attrs, parent) {
          var e = document.createElementNS(NS, name);
          for (var k in attrs) { e.setAttribute(k, attrs[k]); }
          if (parent) { parent.appendChild(e); }
          return e;
        }
        function fmt(v) {
          if (v === 0) { return '0'; }
          var a = Math.abs(v);
          if (a >= 1e6) { return (v / 1e6).toFixed(a >= 1e7 ? 0 : 1) + 'M'; }
          if (a >= 1e3) { return (v / 1e3).toFixed(a >= 1e4 ? 0 : 1) + 'k'; }
          if (a >= 1) { return String(Math.round(v * 10) / 10); }
          return v.toPrecision(2);
        }
        function duration(v) {
          if (v < 1) { return Math.round(v * 1000) + 'ms'; }
          if (v < 60) { return fmt(v) + 's'; }
          if (v < 3600) { return fmt(v / 60) + 'min'; }
          if (v < 86400) { return fmt(v / 3600) + 'h'; }
          if (v < 3.15e7) { return fmt(v / 86400) + 'd'; }
          return fmt(v / 3.15e7) + 'y';
        }
        function niceTicks(min, max, count) {
          var span = max - min || 1, step = Math.pow(10, Math.floor(Math.log10(span / count)));
          var err = span / count / step;
          if (err >= 7.5) { step *= 10; } else if (err >= 3.5) { step *= 5; } else if (err >= 1.5) { step *= 2; }
          var ticks = [];
          for (var v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step) { ticks.push(v); }
          return ticks;
        }
        // series: [{name, color, xs, ys}]; options: {log, shade: [[x0, x1]], xLabel, yLabel}
        function chart(title, series, options) {
          var legendRows = Math.ceil(series.length / 2);
          var W = 560, H = 300 + legendRows * 14, L = 56, R = 12, T = 10 + legendRows * 14, B = 40;
          var fig = document.createElement('figure');
          var cap = document.createElement('figcaption');
          cap.textContent = title;
          fig.appendChild(cap);
          document.getElementById('charts').appendChild(fig);
          var svg = el('svg', {width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, 'class': 'chart', 'data-title': title}, fig);
          var xmin = Infinity, xmax = -Infinity, ymin = Infinity, ymax = -Infinity;
          series.forEach(function (s) {
            s.xs.forEach(function (x) { xmin = Math.min(xmin, x); xmax = Math.max(xmax, x); });
            s.ys.forEach(function (y) { if (y !== null && (!options.log || y > 0)) { ymin = Math.min(ymin, y); ymax = Math.max(ymax, y); } });
          });
          if (!isFinite(ymin)) { ymin = options.log ? 1 : 0; ymax = options.log ? 10 : 1; } // nothing to draw (a log scale needs a positive range)
          var ty = function (y) { return y; };
          if (options.log) {
            ymin = Math.pow(10, Math.floor(Math.log10(ymin)));
            ymax = Math.pow(10, Math.ceil(Math.log10(ymax)));
            if (ymax <= ymin) { ymax = ymin * 10; }
            ty = function (y) { return Math.log10(Math.max(y, ymin)); };
          } else {
            ymin = 0;
            ymax = ymax > 0 ? ymax * 1.05 : 1;
          }
          var y0 = ty(ymin), y1 = ty(ymax);
          var sx = function (x) { return L + (x - xmin) / ((xmax - xmin) || 1) * (W - L - R); };
          var sy = function (y) { return H - B - (ty(y) - y0) / ((y1 - y0) || 1) * (H - T - B); };
          (options.shade || []).forEach(function (w) {
            var a = sx(Math.max(w[0], xmin)), b = sx(Math.min(w[1], xmax));
            el('rect', {x: a, y: T, width: Math.max(1, b - a), height: H - T - B, fill: '#f2c94c', 'fill-opacity': 0.25, 'class': 'fault'}, svg);
          });
          var yticks = options.log ? [] : niceTicks(ymin, ymax, 5);
          if (options.log) { for (var p = Math.log10(ymin); p <= Math.log10(ymax) + 1e-9; p++) { yticks.push(Math.pow(10, p)); } }
          yticks.forEach(function (v) {
            el('line', {x1: L, x2: W - R, y1: sy(v), y2: sy(v), stroke: '#eee'}, svg);
            var t = el('text', {x: L - 4, y: sy(v) + 4, 'text-anchor': 'end'}, svg);
            t.textContent = options.unit === 's' ? duration(v) : fmt(v);
          });
          niceTicks(xmin, xmax, 8).forEach(function (v) {
            var t = el('text', {x: sx(v), y: H - B + 14, 'text-anchor': 'middle'}, svg);
            t.textContent = fmt(v);
          });
          el('line', {x1: L, x2: W - R, y1: H - B, y2: H - B, stroke: '#888'}, svg);
          el('line', {x1: L, x2: L, y1: T, y2: H - B, stroke: '#888'}, svg);
          var xl = el('text', {x: (L + W - R) / 2, y: H - 6, 'text-anchor': 'middle'}, svg);
          xl.textContent = options.xLabel;
          var yl = el('text', {x: 12, y: (T + H - B) / 2, 'text-anchor': 'middle', transform: 'rotate(-90 12 ' + (T + H - B) / 2 + ')'}, svg);
          yl.textContent = options.yLabel;
          series.forEach(function (s, i) {
            var d = '';
            for (var k = 0; k < s.xs.length; k++) {
              if (s.ys[k] === null || (options.log && !(s.ys[k] > 0))) { continue; }
              d += (d ? 'L' : 'M') + sx(s.xs[k]).toFixed(1) + ',' + sy(s.ys[k]).toFixed(1);
            }
            el('path', {d: d || 'M0,0', fill: 'none', stroke: s.color, 'stroke-width': 1.5, 'class': 'line', 'data-series': s.name}, svg);
            var lx = L + (i % 2) * 240, ly = 14 + Math.floor(i / 2) * 14;
            el('rect', {x: lx, y: ly - 8, width: 10, height: 3, fill: s.color}, svg);
            var lt = el('text', {x: lx + 14, y: ly - 4}, svg);
            lt.textContent = s.name;
          });
          drawn++;
        }
        function num(v, unit) { return v === null ? '-' : v + unit; }
        function seconds(n) { var xs = []; for (var i = 0; i < n; i++) { xs.push(i); } return xs; }
        function simulation() {
          document.getElementById('scenario').textContent = data.scenario + (data.faultNames.length ? '. Shaded: ' + data.faultNames.join(', ') : '');
          var table = '<table><tr><th>policy</th><th>baseline goodput/s</th><th>goodput after/s</th><th>recovered</th><th>recovery</th><th>peak concurrency</th><th>amplification</th><th>success of started</th><th>unfinished at the end</th><th>p99 latency of successes</th><th>why</th></tr>';
          data.policies.forEach(function (p) {
            var s = p.summary, name = document.createElement('span'), why = document.createElement('span');
            name.textContent = p.name;
            why.textContent = s.verdictReason;
            table += '<tr><td>' + name.innerHTML + '</td><td>' + num(s.baselineGoodput, '') + '</td><td>' + num(s.goodputAfterFault, '') + '</td><td class="verdict ' + (s.recovered ? 'yes' : s.verdict === 'NO' ? 'no' : 'other') + '">' + s.verdict + '</td><td>' + num(s.recoverySeconds, ' s') + '</td><td>' + s.peakConcurrency + '</td><td>' + num(s.amplification, '') + '</td><td>' + (s.successRatio === null ? '-' : (100 * s.successRatio).toFixed(1) + '%') + '</td><td>' + s.unfinishedRequests + '</td><td>' + num(s.p99SuccessLatencySeconds, ' s') + '</td><td>' + why.innerHTML + '</td></tr>';
          });
          document.getElementById('summary').innerHTML = table + '</table>';
          function lines(field) {
            var out = [];
            data.policies.forEach(function (p, i) { if (p[field]) { out.push({name: p.name, color: COLORS[i % COLORS.length], xs: seconds(p[field].length), ys: p[field]}); } });
            return out;
          }
          chart('Goodput (successful requests per second)', lines('goodput'), {shade: data.faults, xLabel: 'time (s)', yLabel: 'req/s'});
          chart('Timeouts per second', lines('timeouts'), {shade: data.faults, xLabel: 'time (s)', yLabel: 'timeouts/s'});
          chart('Server concurrency (log scale)', lines('concurrency'), {shade: data.faults, log: true, xLabel: 'time (s)', yLabel: 'requests in server'});
          chart('Server latency (log scale)', lines('latency'), {shade: data.faults, log: true, unit: 's', xLabel: 'time (s)', yLabel: 'latency'});
          chart('Attempts per second', lines('attempts'), {shade: data.faults, xLabel: 'time (s)', yLabel: 'attempts/s'});
          chart('Client p99 latency of successful requests (log scale)', lines('p99'), {shade: data.faults, log: true, unit: 's', xLabel: 'time (s)', yLabel: 'latency'});
          // Storm protection: only the policies that use a mechanism have its series.
          if (lines('breakerOpen').length) {
            chart('Circuit breaker: fraction of time open', lines('breakerOpen'), {shade: data.faults, xLabel: 'time (s)', yLabel: 'open'});
            chart('Calls refused by the breaker per second', lines('refused'), {shade: data.faults, xLabel: 'time (s)', yLabel: 'refused/s'});
          }
          if (lines('limiterFillRate').length) {
            chart('Adaptive limiter: fill rate (0 until the first throttle)', lines('limiterFillRate'), {shade: data.faults, xLabel: 'time (s)', yLabel: 'tokens/s'});
            chart('Calls refused by the limiter per second', lines('limiterRefused'), {shade: data.faults, xLabel: 'time (s)', yLabel: 'refused/s'});
          }
          if (lines('hedgesSent').length) {
            chart('Hedges sent per second', lines('hedgesSent'), {shade: data.faults, xLabel: 'time (s)', yLabel: 'hedges/s'});
            chart('Hedges in flight', lines('hedgesInFlight'), {shade: data.faults, xLabel: 'time (s)', yLabel: 'hedges'});
          }
          if (lines('concurrencyLimit').length) {
            chart('Concurrency limiter: limit (attempts in flight admitted)', lines('concurrencyLimit'), {shade: data.faults, xLabel: 'time (s)', yLabel: 'limit'});
            chart('First attempts refused by the concurrency limiter per second', lines('concurrencyRefusedFirst'), {shade: data.faults, xLabel: 'time (s)', yLabel: 'refused/s'});
            chart('Retries and hedges refused by the concurrency limiter per second', lines('concurrencyRefusedRetries'), {shade: data.faults, xLabel: 'time (s)', yLabel: 'refused/s'});
          }
        }
        function contention() {
          var names = [], byName = {};
          data.rows.forEach(function (r) {
            if (!byName[r.strategy]) { byName[r.strategy] = {xs: [], calls: [], time: []}; names.push(r.strategy); }
            byName[r.strategy].xs.push(r.clients); byName[r.strategy].calls.push(r.calls); byName[r.strategy].time.push(r.timeMs);
          });
          function lines(field) { return names.map(function (n, i) { return {name: n, color: COLORS[i % COLORS.length], xs: byName[n].xs, ys: byName[n][field]}; }); }
          document.getElementById('scenario').textContent = 'Each of N clients makes one optimistic-concurrency write to one row; on conflict it backs off and starts over.';
          chart('Mean write calls', lines('calls'), {xLabel: 'clients (N)', yLabel: 'calls'});
          chart('Mean completion time', lines('time'), {xLabel: 'clients (N)', yLabel: 'ms'});
        }
        if (data.kind === 'simulation') { simulation(); } else { contention(); }
        document.body.setAttribute('data-charts-drawn', String(drawn));
      })();
      </script>
      </body></html>
      """;
}
