package dev.backoff.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * Charts as inline SVG written on the server side (no script, no library, no network), for the pages of runs
 * over seeds and of sweeps: strip plots of a metric's runs with the median's interval, shares with their
 * intervals, line charts and heatmaps. Coordinates are written with one decimal by {@link Values#format}, so
 * the same data give the same bytes on every JDK. Stateless.
 */
final class Svg {
  private Svg() {}

  static final String[] COLORS = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
      "#17becf"};
  private static final int WIDTH = 760;

  /** Text for HTML and SVG: {@code & < > " '} escaped. */
  static String escape(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }

  static String n(double value) {
    return Values.format(value, 1);
  }

  /** A linear axis from {@code min} to {@code max} with "nice" ticks. */
  static final class Axis {
    final double min;
    final double max;
    final boolean log;
    final List<Double> ticks = new ArrayList<>();

    /** A log axis over powers of ten from below {@code low} to above {@code high} (both positive). */
    static Axis log(double low, double high) {
      return new Axis(StrictMath.pow(10, Math.floor(StrictMath.log10(low))), StrictMath.pow(10, Math.ceil(StrictMath.log10(high))));
    }

    /** Whether values this far apart (all positive, the largest 30 times the smallest or more) read better on a log axis. */
    static boolean wantsLog(double low, double high) {
      return low > 0 && high / low >= 30;
    }

    private Axis(double min, double max) {
      this.log = true;
      this.min = min;
      this.max = max == min ? min * 10 : max;
      for (double tick = this.min; tick <= this.max * 1.000001; tick *= 10) {
        ticks.add(tick);
      }
    }

    Axis(double low, double high, boolean fromZero) {
      this.log = false;
      if (!(low <= high)) { // no data
        low = 0;
        high = 1;
      }
      if (fromZero && low > 0) {
        low = 0;
      }
      if (high == low) {
        double pad = low == 0 ? 1 : Math.abs(low) * 0.1;
        low = fromZero && low >= 0 ? Math.max(0, low - pad) : low - pad;
        high = high + pad;
      }
      double span = high - low;
      double step = StrictMath.pow(10, Math.floor(StrictMath.log10(span / 5)));
      double error = span / 5 / step;
      if (error >= 7.5) {
        step *= 10;
      } else if (error >= 3.5) {
        step *= 5;
      } else if (error >= 1.5) {
        step *= 2;
      }
      min = Math.floor(low / step) * step;
      max = Math.ceil(high / step) * step;
      for (long k = Math.round(min / step); k * step <= max + step * 1e-9; k++) {
        ticks.add(k * step);
      }
    }

    double at(double value, double from, double to) {
      double clamped = Math.max(min, Math.min(max, value));
      if (log) {
        return from + StrictMath.log10(clamped / min) / StrictMath.log10(max / min) * (to - from);
      }
      return from + (clamped - min) / (max - min) * (to - from);
    }
  }

  /** A row of a strip plot: a name, each run's value (NaN for none) and the summary statistics. */
  record Strip(String name, String color, double[] values, Stats.Sample sample) {}

  /**
   * A strip plot: one row per entry, a dot per run, a bar for the median's 95% interval (reaching the edge
   * when unbounded), a tick at the median and a diamond at the mean.
   */
  static String strips(String title, Metric metric, List<Strip> rows) {
    double low = Double.POSITIVE_INFINITY;
    double high = Double.NEGATIVE_INFINITY;
    int nameWidth = 0;
    for (Strip row : rows) {
      if (row.sample().size() > 0) {
        low = Math.min(low, row.sample().min());
        high = Math.max(high, row.sample().max());
      }
      nameWidth = Math.max(nameWidth, row.name().length());
    }
    boolean log = Axis.wantsLog(low, high);
    Axis axis = log ? Axis.log(low, high) : new Axis(low, high, true);
    int left = Math.min(300, 16 + nameWidth * 7);
    int right = WIDTH - 90;
    int rowHeight = 30;
    int top = 10;
    int height = top + rows.size() * rowHeight + 44;
    StringBuilder svg = open(title, height);
    int bottom = top + rows.size() * rowHeight;
    axisLines(svg, axis, metric, left, right, top, bottom);
    for (int r = 0; r < rows.size(); r++) {
      Strip row = rows.get(r);
      double y = top + r * rowHeight + rowHeight / 2.0;
      svg.append("<text x=\"").append(left - 6).append("\" y=\"").append(n(y + 4))
          .append("\" text-anchor=\"end\">").append(escape(row.name())).append("</text>\n");
      Stats.Sample sample = row.sample();
      if (sample.size() == 0) {
        svg.append("<text x=\"").append(left + 4).append("\" y=\"").append(n(y + 4))
            .append("\" class=\"none\">no run has this number</text>\n");
        continue;
      }
      Stats.Estimate median = sample.median();
      double a = axis.at(median.lower(), left, right);
      double b = axis.at(median.upper(), left, right);
      svg.append("<rect class=\"interval\" x=\"").append(n(a)).append("\" y=\"").append(n(y - 4))
          .append("\" width=\"").append(n(Math.max(1, b - a))).append("\" height=\"8\" fill=\"").append(row.color())
          .append("\" fill-opacity=\"0.25\"/>\n");
      double[] values = row.values();
      for (int i = 0; i < values.length; i++) {
        if (Double.isNaN(values[i])) {
          continue;
        }
        double jitter = (i * 7 % 11) - 5; // deterministic spread, so equal values stay visible
        svg.append("<circle class=\"run\" cx=\"").append(n(axis.at(values[i], left, right))).append("\" cy=\"")
            .append(n(y + jitter)).append("\" r=\"2.5\" fill=\"").append(row.color())
            .append("\" fill-opacity=\"0.6\"/>\n");
      }
      double m = axis.at(median.value(), left, right);
      svg.append("<line class=\"median\" x1=\"").append(n(m)).append("\" x2=\"").append(n(m)).append("\" y1=\"")
          .append(n(y - 9)).append("\" y2=\"").append(n(y + 9)).append("\" stroke=\"#222\" stroke-width=\"2\"/>\n");
      double mean = axis.at(sample.mean().value(), left, right);
      svg.append("<path class=\"mean\" d=\"M").append(n(mean)).append(',').append(n(y - 5)).append("l4,5l-4,5l-4,-5z\" "
          + "fill=\"#fff\" stroke=\"#222\"/>\n");
      svg.append("<text x=\"").append(right + 6).append("\" y=\"").append(n(y + 4)).append("\">")
          .append(escape(metric.format(median.value()))).append(sample.missing() > 0 ? " (" + sample.size() + " runs)" : "")
          .append("</text>\n");
    }
    svg.append("<text x=\"").append(left).append("\" y=\"").append(height - 6).append("\">")
        .append("dots: runs; band: 95% interval of the median; bar: median; diamond: mean")
        .append(log ? "; log scale" : "").append("</text>\n");
    return close(svg);
  }

  /** A bar per row for a share in [0, 1] with its interval as a whisker. */
  static String shares(String title, List<String> names, double[] shares, Stats.Interval[] intervals) {
    int nameWidth = 0;
    for (String name : names) {
      nameWidth = Math.max(nameWidth, name.length());
    }
    Axis axis = new Axis(0, 1, true);
    int left = Math.min(300, 16 + nameWidth * 7);
    int right = WIDTH - 90;
    int rowHeight = 26;
    int top = 10;
    int bottom = top + names.size() * rowHeight;
    int height = bottom + 44;
    StringBuilder svg = open(title, height);
    axisLines(svg, axis, Metric.RECOVERED, left, right, top, bottom);
    for (int r = 0; r < names.size(); r++) {
      double y = top + r * rowHeight + rowHeight / 2.0;
      String color = COLORS[r % COLORS.length];
      svg.append("<text x=\"").append(left - 6).append("\" y=\"").append(n(y + 4)).append("\" text-anchor=\"end\">")
          .append(escape(names.get(r))).append("</text>\n");
      double x = axis.at(shares[r], left, right);
      svg.append("<rect class=\"share\" x=\"").append(left).append("\" y=\"").append(n(y - 7)).append("\" width=\"")
          .append(n(Math.max(0, x - left))).append("\" height=\"14\" fill=\"").append(color)
          .append("\" fill-opacity=\"0.7\"/>\n");
      double a = axis.at(intervals[r].lower(), left, right);
      double b = axis.at(intervals[r].upper(), left, right);
      svg.append("<path class=\"whisker\" d=\"M").append(n(a)).append(',').append(n(y)).append("H").append(n(b))
          .append("M").append(n(a)).append(',').append(n(y - 5)).append("v10M").append(n(b)).append(',')
          .append(n(y - 5)).append("v10\" stroke=\"#222\" fill=\"none\"/>\n");
      svg.append("<text x=\"").append(right + 6).append("\" y=\"").append(n(y + 4)).append("\">")
          .append(Metric.RECOVERED.format(shares[r])).append("</text>\n");
    }
    svg.append("<text x=\"").append(left).append("\" y=\"").append(height - 6)
        .append("\">bar: share of runs; whisker: 95% Wilson interval</text>\n");
    return close(svg);
  }

  /** A line per series over numeric x values, with each point's interval as a whisker (NaN: a gap). */
  record Line(String name, String color, double[] ys, double[] lows, double[] highs) {}

  static String lines(String title, String xLabel, double[] xs, String[] xTexts, Metric metric, List<Line> series) {
    double low = Double.POSITIVE_INFINITY;
    double high = Double.NEGATIVE_INFINITY;
    for (Line line : series) {
      for (int i = 0; i < xs.length; i++) {
        for (double v : new double[] {line.ys()[i], line.lows()[i], line.highs()[i]}) {
          if (Double.isFinite(v)) {
            low = Math.min(low, v);
            high = Math.max(high, v);
          }
        }
      }
    }
    Axis y = new Axis(low, high, true);
    if (metric == Metric.RECOVERED || metric == Metric.SUCCESS_RATIO) {
      y = new Axis(0, 1, true);
    }
    Axis x = new Axis(xs[0], xs[xs.length - 1], false);
    int left = 70;
    int right = WIDTH - 20;
    int legendRows = (series.size() + 1) / 2;
    int top = 12 + legendRows * 16;
    int bottom = top + 260;
    int height = bottom + 42;
    StringBuilder svg = open(title, height);
    for (double tick : y.ticks) {
      double py = y.at(tick, bottom, top);
      svg.append("<line x1=\"").append(left).append("\" x2=\"").append(right).append("\" y1=\"").append(n(py))
          .append("\" y2=\"").append(n(py)).append("\" stroke=\"#eee\"/>\n");
      svg.append("<text x=\"").append(left - 4).append("\" y=\"").append(n(py + 4)).append("\" text-anchor=\"end\">")
          .append(escape(metric.format(tick))).append("</text>\n");
    }
    for (int i = 0; i < xs.length; i++) {
      if (xs.length > 12 && i % ((xs.length + 11) / 12) != 0) {
        continue;
      }
      double px = x.at(xs[i], left, right);
      svg.append("<text x=\"").append(n(px)).append("\" y=\"").append(bottom + 14).append("\" text-anchor=\"middle\">")
          .append(escape(xTexts[i])).append("</text>\n");
    }
    svg.append("<path d=\"M").append(left).append(',').append(top).append("V").append(bottom).append("H").append(right)
        .append("\" stroke=\"#888\" fill=\"none\"/>\n");
    svg.append("<text x=\"").append((left + right) / 2).append("\" y=\"").append(bottom + 32)
        .append("\" text-anchor=\"middle\">").append(escape(xLabel)).append("</text>\n");
    for (int s = 0; s < series.size(); s++) {
      Line line = series.get(s);
      StringBuilder d = new StringBuilder();
      boolean pen = false;
      for (int i = 0; i < xs.length; i++) {
        double v = line.ys()[i];
        if (!Double.isFinite(v)) {
          pen = false;
          continue;
        }
        d.append(pen ? "L" : "M").append(n(x.at(xs[i], left, right))).append(',').append(n(y.at(v, bottom, top)));
        pen = true;
      }
      svg.append("<path class=\"line\" data-series=\"").append(escape(line.name())).append("\" d=\"")
          .append(d.length() == 0 ? "M0,0" : d).append("\" stroke=\"").append(line.color())
          .append("\" stroke-width=\"1.5\" fill=\"none\"/>\n");
      for (int i = 0; i < xs.length; i++) {
        if (!Double.isFinite(line.ys()[i]) || !Double.isFinite(line.lows()[i]) || !Double.isFinite(line.highs()[i])) {
          continue;
        }
        double px = x.at(xs[i], left, right);
        svg.append("<path class=\"whisker\" d=\"M").append(n(px)).append(',').append(n(y.at(line.lows()[i], bottom, top)))
            .append("V").append(n(y.at(line.highs()[i], bottom, top))).append("\" stroke=\"").append(line.color())
            .append("\" stroke-opacity=\"0.5\"/>\n");
      }
      int lx = left + (s % 2) * 330;
      int ly = 14 + (s / 2) * 16;
      svg.append("<rect x=\"").append(lx).append("\" y=\"").append(ly - 8).append("\" width=\"12\" height=\"4\" fill=\"")
          .append(line.color()).append("\"/><text x=\"").append(lx + 16).append("\" y=\"").append(ly - 3).append("\">")
          .append(escape(line.name())).append("</text>\n");
    }
    return close(svg);
  }

  /**
   * A heatmap: rows by {@code yTexts} (top to bottom), columns by {@code xTexts}; each cell's color from its
   * value on one scale (light to dark; {@code higherIsBetter} picks green for high values, else for low), its
   * value written in it when the cells are wide enough; NaN cells are grey.
   */
  static String heatmap(String title, String xLabel, String[] xTexts, String yLabel, String[] yTexts,
      double[][] values, Metric metric, boolean higherIsBetter) {
    double low = Double.POSITIVE_INFINITY;
    double high = Double.NEGATIVE_INFINITY;
    for (double[] row : values) {
      for (double v : row) {
        if (Double.isFinite(v)) {
          low = Math.min(low, v);
          high = Math.max(high, v);
        }
      }
    }
    if (metric == Metric.RECOVERED || metric == Metric.SUCCESS_RATIO) {
      low = 0;
      high = 1;
    }
    int left = 90;
    int right = WIDTH - 20;
    int top = 10;
    double cellWidth = (right - left) / (double) xTexts.length;
    double cellHeight = Math.max(14, Math.min(32, 320.0 / yTexts.length));
    double bottom = top + cellHeight * yTexts.length;
    int height = (int) Math.ceil(bottom) + 60;
    StringBuilder svg = open(title, height);
    boolean labels = cellWidth >= 44 && cellHeight >= 14;
    for (int r = 0; r < yTexts.length; r++) {
      double y = top + r * cellHeight;
      svg.append("<text x=\"").append(left - 6).append("\" y=\"").append(n(y + cellHeight / 2 + 4))
          .append("\" text-anchor=\"end\">").append(escape(yTexts[r])).append("</text>\n");
      for (int c = 0; c < xTexts.length; c++) {
        double v = values[r][c];
        double share = !Double.isFinite(v) ? Double.NaN : high > low ? (v - low) / (high - low) : 0.5;
        String fill = Double.isNaN(share) ? "#ddd" : color(higherIsBetter ? share : 1 - share);
        svg.append("<rect class=\"cell\" x=\"").append(n(left + c * cellWidth)).append("\" y=\"").append(n(y))
            .append("\" width=\"").append(n(cellWidth)).append("\" height=\"").append(n(cellHeight))
            .append("\" fill=\"").append(fill).append("\" stroke=\"#fff\"><title>").append(escape(xTexts[c]))
            .append(", ").append(escape(yTexts[r])).append(": ").append(escape(metric.format(v)))
            .append("</title></rect>\n");
        if (labels) {
          svg.append("<text x=\"").append(n(left + (c + 0.5) * cellWidth)).append("\" y=\"")
              .append(n(y + cellHeight / 2 + 4)).append("\" text-anchor=\"middle\"")
              .append(!Double.isNaN(share) && (higherIsBetter ? share : 1 - share) > 0.55 ? " style=\"fill:#fff\"" : "")
              .append('>').append(escape(metric.format(v)))
              .append("</text>\n");
        }
      }
    }
    for (int c = 0; c < xTexts.length; c++) {
      if (xTexts.length > 16 && c % ((xTexts.length + 15) / 16) != 0) {
        continue;
      }
      svg.append("<text x=\"").append(n(left + (c + 0.5) * cellWidth)).append("\" y=\"").append(n(bottom + 14))
          .append("\" text-anchor=\"middle\">").append(escape(xTexts[c])).append("</text>\n");
    }
    svg.append("<text x=\"").append((left + right) / 2).append("\" y=\"").append(n(bottom + 32))
        .append("\" text-anchor=\"middle\">").append(escape(xLabel)).append("</text>\n");
    svg.append("<text x=\"12\" y=\"").append(n(top + (bottom - top) / 2)).append("\" text-anchor=\"middle\" transform=\"rotate(-90 12 ")
        .append(n(top + (bottom - top) / 2)).append(")\">").append(escape(yLabel)).append("</text>\n");
    svg.append("<text x=\"").append(left).append("\" y=\"").append(height - 6).append("\">scale: ")
        .append(escape(metric.format(low))).append(" to ").append(escape(metric.format(high)))
        .append(higherIsBetter ? " (darker green: higher)" : " (darker green: lower)").append("; grey: no value</text>\n");
    return close(svg);
  }

  /** From pale yellow (0) to dark green (1). */
  static String color(double share) {
    double t = Math.max(0, Math.min(1, share));
    int r = (int) Math.round(255 + t * (0x1b - 255));
    int g = (int) Math.round(247 + t * (0x7f - 247));
    int b = (int) Math.round(188 + t * (0x3a - 188));
    return String.format(java.util.Locale.ROOT, "#%02x%02x%02x", r, g, b);
  }

  private static void axisLines(StringBuilder svg, Axis axis, Metric metric, int left, int right, int top,
      int bottom) {
    for (double tick : axis.ticks) {
      double x = axis.at(tick, left, right);
      svg.append("<line x1=\"").append(n(x)).append("\" x2=\"").append(n(x)).append("\" y1=\"").append(top)
          .append("\" y2=\"").append(bottom).append("\" stroke=\"#eee\"/>\n");
      svg.append("<text x=\"").append(n(x)).append("\" y=\"").append(bottom + 14).append("\" text-anchor=\"middle\">")
          .append(escape(metric.format(tick))).append("</text>\n");
    }
    svg.append("<path d=\"M").append(left).append(',').append(top).append("V").append(bottom).append("H").append(right)
        .append("\" stroke=\"#888\" fill=\"none\"/>\n");
  }

  private static StringBuilder open(String title, int height) {
    return new StringBuilder("<figure><figcaption>").append(escape(title)).append("</figcaption>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")
        .append(WIDTH).append("\" height=\"").append(height).append("\" viewBox=\"0 0 ").append(WIDTH).append(' ')
        .append(height).append("\" class=\"chart\" data-title=\"").append(escape(title)).append("\">\n");
  }

  private static String close(StringBuilder svg) {
    return svg.append("</svg></figure>\n").toString();
  }

  /** A self-contained page: a title, an introduction (HTML), then the body (tables and figures). */
  static String page(String title, String introHtml, String bodyHtml) {
    return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + escape(title) + "</title>\n"
        + "<style>\n"
        + "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}\n"
        + "h1{font-size:20px} h2{font-size:16px;margin:20px 0 4px}\n"
        + "figure{margin:12px 0;border:1px solid #ddd;border-radius:6px;padding:8px;display:inline-block}\n"
        + "figcaption{font-weight:600;margin-bottom:4px}\n"
        + "table{border-collapse:collapse;margin-top:8px} td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}\n"
        + "td:first-child,th:first-child{text-align:left} td{white-space:nowrap}\n"
        + "svg text{font:11px system-ui,sans-serif;fill:#444} svg text.none{fill:#999}\n"
        + "</style></head>\n<body>\n<h1>" + escape(title) + "</h1>\n" + introHtml + "\n" + bodyHtml + "</body></html>\n";
  }

  /** An HTML table; the first row is the header; cells are escaped. */
  static String table(List<String[]> rows) {
    StringBuilder html = new StringBuilder("<table>\n");
    for (int r = 0; r < rows.size(); r++) {
      html.append("<tr>");
      for (String cell : rows.get(r)) {
        String tag = r == 0 ? "th" : "td";
        html.append('<').append(tag).append('>').append(escape(cell)).append("</").append(tag).append('>');
      }
      html.append("</tr>\n");
    }
    return html.append("</table>\n").toString();
  }
}
