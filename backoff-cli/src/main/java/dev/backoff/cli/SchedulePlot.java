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

  /**
   * Checks the {@code --plot} file before any work: a .png or .svg name, in a directory that exists and
   * takes new files, and not itself a directory. Missing directories are not created: the user named a file,
   * and a typo in its directory should be an error, not a new directory tree (the shell's {@code >} and
   * {@code curl -o} behave the same).
   *
   * @throws Errors.UsageException naming the flag, the path and what is wrong with it
   */
  static void check(Path file) {
    String name = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
    if (!name.endsWith(".png") && !name.endsWith(".svg")) {
      throw new Errors.UsageException("--plot must name a .png or .svg file, was '" + file + "'");
    }
    Path parent = file.toAbsolutePath().normalize().getParent();
    if (Files.isDirectory(file)) {
      throw refused(file, "is a directory, not a file");
    }
    if (!Files.exists(parent)) {
      throw refused(file, "its directory " + parent + " does not exist (it is not created; create it first)");
    }
    if (!Files.isDirectory(parent)) {
      throw refused(file, "its parent " + parent + " is not a directory");
    }
    try {
      // Only writing tells for sure (root passes permission checks; /proc and read-only mounts do not).
      Files.delete(Files.createTempFile(parent, ".backoff-", ".probe"));
    } catch (IOException e) {
      throw refused(file, "cannot write into " + parent + ": " + (e instanceof java.nio.file.NoSuchFileException
          ? "refused by the file system" : InputFiles.reason(e)));
    }
  }

  private static Errors.UsageException refused(Path file, String reason) {
    return new Errors.UsageException("--plot " + file + ": " + reason);
  }

  static void write(Schedule schedule, String title, Path file) throws IOException {
    System.setProperty("java.awt.headless", "true");
    List<XYChart> charts = new ArrayList<>();
    charts.add(chart(schedule, "Delay before retry (linear)", "delay (s)", ScheduleRow::delay, false, title));
    charts.add(chart(schedule, "Delay before retry (log)", "delay (s)", ScheduleRow::delay, true, title));
    charts.add(chart(schedule, "Elapsed time at retry (linear)", "elapsed (s)", ScheduleRow::elapsed, false, title));
    charts.add(chart(schedule, "Elapsed time at retry (log)", "elapsed (s)", ScheduleRow::elapsed, true, title));
    boolean svg = file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".svg");
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
    // A still image: no tooltips painted into it (XChart 4 shows them on hover only unless told otherwise).
    chart.getStyler().setToolTipsAlwaysVisible(false);
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
