package dev.backoff.lab;

import java.io.PrintWriter;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One run of a client fleet against a lab server, as {@code backoff lab client} does it: a sample each
 * second, a rate line every 5 s, and a summary at the end. Stateless; each call runs its own fleet.
 */
public final class LabClientRun {
  private LabClientRun() {}

  /**
   * Starts the fleet {@code fleet} describes and samples it once a second until {@code duration} has passed
   * (null: no limit) or {@code stop} is released, printing a rate line every 5 s to {@code lines}. The
   * server's concurrency comes from {@code statsUri} (a lab server's {@code /admin/stats}); if that does not
   * answer now, a note goes to {@code err} and the concurrency stays unknown.
   *
   * @return the summary: a JSON object ({@code json}) or aligned lines
   * @throws InterruptedException if interrupted while waiting for the next second
   * @throws IllegalStateException if the fleet cannot start (see {@link ClientFleet.Builder#start()})
   */
  public static String run(ClientFleet.Builder fleet, String policy, URI statsUri, Duration duration,
      boolean json, CountDownLatch stop, PrintWriter lines, PrintWriter err) throws InterruptedException {
    ServerProbe probe = ServerProbe.remote(statsUri, Duration.ofMillis(500));
    if (probe.read() == null) {
      err.println("backoff lab client: " + statsUri + " did not answer: not a lab server (or paused); "
          + "its concurrency will be unknown");
      probe = ServerProbe.none();
    }
    err.flush();
    try (ClientFleet running = fleet.start()) {
      LabRecorder recorder = new LabRecorder(running, probe);
      long start = System.nanoTime();
      long seconds = duration == null ? Long.MAX_VALUE : duration.toSeconds();
      for (long second = 0; second < seconds; second++) {
        long wait = start + TimeUnit.SECONDS.toNanos(second + 1) - System.nanoTime();
        if (wait > 0 && stop.await(wait, TimeUnit.NANOSECONDS)) {
          break;
        }
        LabSample sample = recorder.sample();
        if ((second + 1) % 5 == 0) {
          List<LabSample> samples = recorder.samples();
          lines.println(LabRecorder.rateLine(samples, samples.size() - 5, samples.size())
              + LabReport.serverSuffix(sample));
          lines.flush();
        }
      }
      List<LabSample> samples = recorder.samples();
      LabSummary summary = LabSummary.detect(samples, running.totals())
          .withP99SuccessLatency(running.latencies().quantileSeconds(0.99));
      return json ? LabReport.clientJson(policy, running.clients(), summary, samples, running.latencies(),
              running.hedgeDelay())
          : LabReport.summaryTable(policy, summary, running.totals())
              + LabReport.latencyAndHedgeDelayRows(running.latencies(), running.hedgeDelay());
    }
  }
}
