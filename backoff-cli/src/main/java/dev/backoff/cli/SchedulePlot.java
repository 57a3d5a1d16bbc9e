package dev.backoff.cli;

import de.erichseifert.vectorgraphics2d.VectorGraphics2D;
import de.erichseifert.vectorgraphics2d.svg.SVGProcessor;
import de.erichseifert.vectorgraphics2d.util.PageSize;
import dev.backoff.plan.Distribution;
import dev.backoff.plan.Schedule;
import dev.backoff.plan.ScheduleRow;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import javax.imageio.ImageIO;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws a schedule as four charts in a 2 × 2 grid, like the retry-storm experiment's figures: delay per retry and elapsed time
 * per retry, each on a linear and a logarithmic scale. Jittered schedules show the mean with the p5 and p95
 * bounds. PNG or SVG, chosen by the file's extension.
 */
final class SchedulePlot {
  private static final int CHART_WIDTH = 640;
  private static final int CHART_HEIGHT = 420;

  private SchedulePlot() {}

  static void checkExtension(Path file) {
    String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
    if (!name.endsWith(".png") && !name.endsWith(".svg")) {
      throw new Errors.UsageException("--plot must name a .png or .svg file, was '" + file + "'");
    }
  }

  static void write(Schedule schedule, String title, Path file) throws IOException {
    System.setProperty("java.awt.headless", "true");
    List<XYChart> charts = new ArrayList<>();
    charts.add(chart(schedule, "Delay before retry (linear)", "delay (s)", ScheduleRow::delay, false, title));
    charts.add(chart(schedule, "Delay before retry (log)", "delay (s)", ScheduleRow::delay, true, title));
    charts.add(chart(schedule, "Elapsed time at retry (linear)", "elapsed (s)", ScheduleRow::elapsed, false, title));
    charts.add(chart(schedule, "Elapsed time at retry (log)", "elapsed (s)", ScheduleRow::elapsed, true, title));
    boolean svg = file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".svg");
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    try (OutputStream out = Files.newOutputStream(file)) {
      if (svg) {
        VectorGraphics2D graphics = new VectorGraphics2D();
        paint(graphics, charts);
        new SVGProcessor().getDocument(graphics.getCommands(), new PageSize(0, 0, 2 * CHART_WIDTH,
            2 * CHART_HEIGHT)).writeTo(out);
      } else {
        BufferedImage image = new BufferedImage(2 * CHART_WIDTH, 2 * CHART_HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D graphics = image.createGraphics();
        graphics.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        paint(graphics, charts);
        graphics.dispose();
        ImageIO.write(image, "png", out);
      }
    }
  }

  private static void paint(Graphics2D graphics, List<XYChart> charts) {
    graphics.setColor(Color.WHITE);
    graphics.fillRect(0, 0, 2 * CHART_WIDTH, 2 * CHART_HEIGHT);
    for (int i = 0; i < charts.size(); i++) {
      Graphics2D cell = (Graphics2D) graphics.create((i % 2) * CHART_WIDTH, (i / 2) * CHART_HEIGHT, CHART_WIDTH,
          CHART_HEIGHT);
      charts.get(i).paint(cell, CHART_WIDTH, CHART_HEIGHT);
      cell.dispose();
    }
  }

  private static XYChart chart(Schedule schedule, String name, String yTitle,
      Function<ScheduleRow, Distribution> column, boolean logarithmic, String title) {
    XYChart chart = new XYChartBuilder().width(CHART_WIDTH).height(CHART_HEIGHT).title(name)
        .xAxisTitle("retry").yAxisTitle(yTitle).build();
    chart.getStyler().setYAxisLogarithmic(logarithmic);
    chart.getStyler().setLegendVisible(true);
    chart.getStyler().setChartTitleVisible(true);
    chart.getStyler().setToolTipsEnabled(false);
    boolean random = schedule.method() != Schedule.Method.EXACT;
    series(chart, schedule, column, Distribution::mean, random ? "mean" : title, logarithmic);
    if (random) {
      series(chart, schedule, column, Distribution::p5, "p5", logarithmic);
      series(chart, schedule, column, Distribution::p95, "p95", logarithmic);
    }
    return chart;
  }

  private static void series(XYChart chart, Schedule schedule, Function<ScheduleRow, Distribution> column,
      ToDoubleFunction<Distribution> statistic, String name, boolean logarithmic) {
    List<Double> x = new ArrayList<>();
    List<Double> y = new ArrayList<>();
    for (ScheduleRow row : schedule.rows()) {
      double value = statistic.applyAsDouble(column.apply(row));
      if (logarithmic && !(value > 0)) {
        continue; // a log scale cannot show zero (e.g. full jitter's p5 before tiny delays)
      }
      x.add((double) row.retry());
      y.add(value);
    }
    if (x.isEmpty()) {
      x.add(1.0);
      y.add(logarithmic ? 1e-9 : 0.0); // XChart refuses an empty series; the axis then shows a single point
    }
    XYSeries series = chart.addSeries(name.length() > 60 ? name.substring(0, 57) + "..." : name, x, y);
    series.setMarker(SeriesMarkers.CIRCLE);
  }
}
