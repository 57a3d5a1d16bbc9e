package dev.backoff.sim;

import java.util.ArrayDeque;

/**
 * A server model. The base class handles what every model shares: a pause (like SIGSTOP: new connections
 * wait in a bounded accept backlog and start at once on resume; those beyond it are never answered, or, with
 * {@code pause-overflow} close, fail at the resume if their clients still wait, or with reconnect are served
 * then), a
 * crash (requests in flight fail, new connections are refused), and capacity or latency faults, which the
 * models interpret. A request whose client timed out keeps its place until it finishes.
 * Mutable, owned by a single-threaded run.
 */
abstract class Server {
  static final int OK = 0;
  static final int ERROR = 1;
  static final int REJECTED = 2;

  final Simulation simulation;
  private final ArrayDeque<Attempt> backlog = new ArrayDeque<>();
  private final int backlogLimit;
  /** With {@code pause-overflow} close or reconnect: the requests beyond the backlog, until the resume; else null. */
  private final ArrayDeque<Attempt> overflow;
  boolean paused;
  boolean crashed;
  int epoch;
  double capacity = 1;
  long addedLatencyNanos;

  Server(Simulation simulation, int backlogLimit) {
    this.simulation = simulation;
    this.backlogLimit = backlogLimit;
    this.overflow = simulation.scenario.pauseOverflow > 0 ? new ArrayDeque<>() : null;
  }

  final void submit(Attempt attempt, long now) {
    if (crashed) {
      simulation.deliverError(attempt, ERROR, -1, now);
      return;
    }
    if (paused) {
      if (backlog.size() < backlogLimit) {
        backlog.addLast(attempt);
      } else if (overflow != null) {
        overflow.addLast(attempt);
      }
      return; // a full accept queue drops the connection: the client times out (or, reconnecting, waits for the resume)
    }
    attempt.epoch = epoch;
    accept(attempt, now);
  }

  /** Starts serving a request that got through to the server process. */
  abstract void accept(Attempt attempt, long now);

  /** Requests in the server (in service or queued), the concurrency the original experiment's server prints. */
  abstract int concurrency();

  /** The latency a request arriving now would see (the original experiment's "last delay"), in nanoseconds. */
  abstract long latencyNanos();

  /** Handles one of the model's own events. */
  abstract void onEvent(int kind, Object target, long datum, long now);

  /**
   * The attempt's client gave up on it (timed out): the request stays in the server until it completes, but
   * the model may drop what it kept only to answer that client. No event may reach the attempt's caller
   * after this; the default keeps everything.
   */
  void abandon(Attempt attempt) {}

  /**
   * Whether this server answers with values and exceptions that the call's policy judges (a scripted server:
   * {@link #result}, {@link #failure}); false for the models, whose answers the simulator translates itself
   * (OK accepted, an error or a rejection retryable, with the server's pushback hint).
   */
  boolean judgesAnswers() {
    return false;
  }

  /** The value an attempt answered OK was answered with (a server that {@link #judgesAnswers()}); else null. */
  Object result(Attempt attempt) {
    return null;
  }

  /**
   * The failure an attempt answered {@code ERROR} or {@code REJECTED} reports, for a server that
   * {@link #judgesAnswers()}.
   */
  Throwable failure(Attempt attempt, int outcome) {
    return outcome == REJECTED ? PolicySpec.REJECTED : PolicySpec.ERROR;
  }

  /**
   * The caller stopped its call: its attempts in flight are void (the simulator ignores their answers); a
   * model keeps their work, as for a timeout. The default does nothing.
   */
  void callerStopped(Caller caller) {}

  /** Called when the capacity or added latency changed. */
  abstract void onConditionsChanged(long now);

  /** Drops every request in the server (each live one fails). */
  abstract void clear(long now);

  /** Called after a pause ends and the backlog was let in. */
  abstract void onResume(long now);

  void pause(long now) {
    paused = true;
  }

  void resume(long now) {
    paused = false;
    // The waiting connections are accepted at once (the original experiment's server: concurrency jumps to ~1000).
    while (!backlog.isEmpty()) {
      Attempt attempt = backlog.pollFirst();
      attempt.epoch = epoch;
      accept(attempt, now);
    }
    if (overflow != null) {
      // The lab's server closes these connections at the resume. A client still waiting sees an error (close),
      // or its HTTP client sends the request again at once, not a policy retry, and it is served (reconnect).
      boolean reconnect = simulation.scenario.pauseOverflow == 2;
      while (!overflow.isEmpty()) {
        Attempt attempt = overflow.pollFirst();
        if (attempt.state != Attempt.PENDING) {
          continue; // its client gave up: nobody sees the close
        }
        if (reconnect) {
          Attempt again = simulation.resend(attempt, now);
          again.epoch = epoch;
          accept(again, now);
        } else {
          simulation.deliverError(attempt, ERROR, -1, now);
        }
      }
    }
    onResume(now);
  }

  void crash(long now) {
    crashed = true;
    epoch++;
    while (!backlog.isEmpty()) {
      simulation.deliverError(backlog.pollFirst(), ERROR, -1, now);
    }
    if (overflow != null) {
      overflow.clear(); // their connections were never accepted: their clients time out
    }
    clear(now);
  }

  void restart(long now) {
    crashed = false;
  }

  void setCapacity(double fraction, long now) {
    capacity = fraction;
    onConditionsChanged(now);
  }

  void setAddedLatency(long nanos, long now) {
    addedLatencyNanos = nanos;
    onConditionsChanged(now);
  }
}
