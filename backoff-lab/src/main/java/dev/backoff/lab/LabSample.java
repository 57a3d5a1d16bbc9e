package dev.backoff.lab;

import dev.backoff.sim.Json;
import java.util.Locale;

/**
 * One second of a lab run: what the fleet saw (attempts answered, failed, timed out; logical requests) and
 * what the server reported (its peak concurrency in the second and its latency), when it can be asked.
 * Immutable.
 */
final class LabSample {
  /** What the server was doing during the second. */
  public enum ServerState {
    /** Answering. */
    RUNNING,
    /** Paused (by the lab, or found paused through {@code /admin/stats}). */
    PAUSED,
    /** Its stats did not answer in time (for example stopped with SIGSTOP). */
    UNREACHABLE,
    /** Not a lab server, or not asked. */
    UNKNOWN
  }

  private final int second;
  private final FleetTotals counts;
  private final int concurrency;
  private final double latencySeconds;
  private final ServerState serverState;

  LabSample(int second, FleetTotals counts, int concurrency, double latencySeconds, ServerState serverState) {
    this.second = second;
    this.counts = counts;
    this.concurrency = concurrency;
    this.latencySeconds = latencySeconds;
    this.serverState = serverState;
  }

  /** The second since the run started that this sample covers (0 is the first). */
  public int second() {
    return second;
  }

  /** The fleet's counts during this second. */
  public FleetTotals counts() {
    return counts;
  }

  /** Logical requests that succeeded in this second (= attempts answered OK). */
  public long goodput() {
    return counts.succeeded();
  }

  /** The server's peak concurrency during the second, or -1 if unknown. */
  public int concurrency() {
    return concurrency;
  }

  /** The server's latency D at its latest check, in seconds, or NaN if unknown. */
  public double latencySeconds() {
    return latencySeconds;
  }

  /** What the server was doing. */
  public ServerState serverState() {
    return serverState;
  }

  /** The sample as the simulator's series entry, plus the lab's extra counts. */
  public String toJson() {
    return Json.compact().object()
        .field("t").number(second).field("goodput").number(goodput()).field("errors").number(counts.errors())
        .field("timeouts").number(counts.timeouts()).field("attempts").number(counts.attempts())
        .field("retries").number(counts.retries())
        .field("concurrency").number(concurrency < 0 ? null : concurrency)
        .field("latencySeconds").decimal(latencySeconds, 3)
        .field("server").string(serverState.name().toLowerCase(Locale.ROOT))
        .endObject().toString();
  }
}
