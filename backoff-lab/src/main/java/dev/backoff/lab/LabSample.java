package dev.backoff.lab;

import dev.backoff.sim.Json;
import java.util.Locale;

/**
 * One second of a lab run: what the fleet saw (attempts answered, failed, timed out; logical requests) and
 * what the server reported (its peak concurrency in the second and its latency), when it can be asked.
 * Immutable.
 *
 * @param second the second since the run started that this sample covers (0 is the first)
 * @param counts the fleet's counts during this second
 * @param concurrency the server's peak concurrency during the second, or -1 if unknown
 * @param latencySeconds the server's latency D at its latest check, in seconds, or NaN if unknown
 * @param serverState what the server was doing
 * @param hedging whether the fleet's policy hedges (its series then carries the hedge counts)
 * @param hedgesInFlight hedges in flight at the end of the second (0 without hedging)
 */
record LabSample(int second, FleetTotals counts, int concurrency, double latencySeconds, ServerState serverState,
    boolean hedging, int hedgesInFlight) {
  /** A sample of a fleet that does not hedge. */
  LabSample(int second, FleetTotals counts, int concurrency, double latencySeconds, ServerState serverState) {
    this(second, counts, concurrency, latencySeconds, serverState, false, 0);
  }

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

  /** Logical requests that succeeded in this second (= attempts answered OK). */
  long goodput() {
    return counts.succeeded();
  }

  /**
   * The sample as the simulator's series entry, plus the lab's extra counts; with hedging also
   * {@code hedgesSent}, {@code hedgesInFlight} and {@code hedgesWon} (the simulator's names and meanings),
   * {@code cancelled} (losers cancelled), {@code sent} and {@code answers} (the sending layer's counts).
   */
  String toJson() {
    Json json = Json.compact().object()
        .field("t").number(second).field("goodput").number(goodput()).field("errors").number(counts.errors())
        .field("timeouts").number(counts.timeouts()).field("attempts").number(counts.attempts())
        .field("retries").number(counts.retries())
        .field("refused").number(counts.refused())
        .field("concurrency").number(concurrency < 0 ? null : concurrency)
        .field("latencySeconds").decimal(latencySeconds, 3)
        .field("server").string(serverState.name().toLowerCase(Locale.ROOT));
    if (hedging) {
      json.field("hedgesSent").number(counts.hedgesSent()).field("hedgesInFlight").number(hedgesInFlight)
          .field("hedgesWon").number(counts.hedgesWon()).field("cancelled").number(counts.cancelled())
          .field("sent").number(counts.sent()).field("answers").number(counts.answers());
    }
    return json.endObject().toString();
  }
}
