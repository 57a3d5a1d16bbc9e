package dev.backoff.lab;

import dev.backoff.sim.KneeLatency;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The retry-storm experiment in one process over loopback sockets: for each policy, a fresh {@link LabServer} and
 * {@link ClientFleet} run steady, the server is paused (like SIGSTOP), resumed, and watched. A run stops early
 * once the server holds its maximum number of requests: that is a storm, and going on would only burn CPU.
 *
 * <p>Immutable and thread-safe; {@link #run} may be called again.
 */
public final class LabDemo {
  private final Builder settings;

  private LabDemo(Builder settings) {
    this.settings = settings;
  }

  /** A builder with the retry-storm experiment's parameters (1000 clients, think 10 s, timeout 2 s, pause 30 s). */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Runs every policy in turn, reporting progress lines to {@code progress}.
   *
   * @throws IOException if a server cannot bind a loopback port
   * @throws InterruptedException if interrupted (the current run's server and fleet are closed first)
   */
  public List<Result> run(Consumer<String> progress) throws IOException, InterruptedException {
    List<Result> results = new ArrayList<>();
    for (String name : settings.policies) {
      results.add(runOne(name, progress));
    }
    return Collections.unmodifiableList(results);
  }

  private Result runOne(String name, Consumer<String> progress)
      throws IOException, InterruptedException {
    int warmup = seconds(settings.warmup);
    int pause = seconds(settings.pause);
    int total = warmup + pause + seconds(settings.after);
    progress.accept("== " + name + ": " + settings.clients + " clients, steady " + warmup + "s, paused " + pause
        + "s, then " + (total - warmup - pause) + "s");
    String stoppedEarly = null;
    try (LabServer server = LabServer.builder().latency(settings.latency).backlog(settings.backlog)
            .maxConnections(settings.maxConnections).start();
        ClientFleet fleet = ClientFleet.builder().uri(server.apiUri()).clients(settings.clients)
            .think(settings.think).timeout(settings.timeout).policy(name).start()) {
      LabRecorder recorder = new LabRecorder(fleet, ServerProbe.of(server));
      long start = System.nanoTime();
      long refusedAtResume = 0;
      for (int second = 0; second < total; second++) {
        if (second == warmup) {
          server.pause();
          progress.accept("t=" + second + "s  server paused");
        } else if (second == warmup + pause) {
          server.resume();
          progress.accept("t=" + second + "s  server resumed");
        }
        long wake = start + TimeUnit.SECONDS.toNanos(second + 1);
        long wait = wake - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        LabSample sample = recorder.sample();
        if (second + 1 == warmup + pause) {
          refusedAtResume = recorder.refusedByServer();
        }
        if ((second + 1) % 5 == 0) {
          List<LabSample> samples = recorder.samples();
          progress.accept(String.format("t=%ds  %s  | server %s", second + 1,
              LabRecorder.rateLine(samples, second - 4, second + 1), server.statusLine()));
        }
        if (second >= warmup + pause && (recorder.refusedByServer() > refusedAtResume
            || sample.concurrency() >= server.maxConnections())) {
          stoppedEarly = "the server held its maximum of " + server.maxConnections() + " requests "
              + (second + 1 - warmup - pause) + "s after resuming";
          progress.accept("t=" + (second + 1) + "s  stopped early: " + stoppedEarly);
          break;
        }
      }
      List<LabSample> samples = recorder.samples();
      int faultEnd = Math.min(warmup + pause, samples.size());
      LabSummary summary = LabSummary.of(samples, fleet.totals(), Math.min(warmup, faultEnd), faultEnd)
          .withP99SuccessLatency(fleet.latencies().quantileSeconds(0.99));
      return new Result(name, summary, samples, warmup, warmup + pause, stoppedEarly);
    }
  }

  private static int seconds(Duration duration) {
    return (int) Math.min(Integer.MAX_VALUE, (duration.toMillis() + 999) / 1000);
  }

  /** The clients per run. */
  public int clients() {
    return settings.clients;
  }

  /** The connections each run's server may hold. */
  public int maxConnections() {
    return settings.maxConnections;
  }

  /** The latency model. */
  public KneeLatency latency() {
    return settings.latency;
  }

  /** The policies run, in order. */
  public List<String> policies() {
    return settings.policies;
  }

  /** The steady time before the pause. */
  public Duration warmup() {
    return settings.warmup;
  }

  /** How long the server stays paused. */
  public Duration pause() {
    return settings.pause;
  }

  /** How long the run goes on after the resume (unless it stops early). */
  public Duration after() {
    return settings.after;
  }

  /** The mean think time. */
  public Duration think() {
    return settings.think;
  }

  /** The per-attempt timeout. */
  public Duration timeout() {
    return settings.timeout;
  }

  /** The server's accept backlog. */
  public int backlog() {
    return settings.backlog;
  }

  /** One policy's run. Immutable. */
  public static final class Result {
    private final String policy;
    private final LabSummary summary;
    private final List<LabSample> samples;
    private final int pausedAt;
    private final int resumedAt;
    private final String stoppedEarly;

    Result(String policy, LabSummary summary, List<LabSample> samples, int pausedAt, int resumedAt,
        String stoppedEarly) {
      this.policy = policy;
      this.summary = summary;
      this.samples = List.copyOf(samples);
      this.pausedAt = pausedAt;
      this.resumedAt = resumedAt;
      this.stoppedEarly = stoppedEarly;
    }

    /** The policy's name. */
    public String policy() {
      return policy;
    }

    /** The verdict. */
    public LabSummary summary() {
      return summary;
    }

    /** One sample per second. */
    List<LabSample> samples() {
      return samples;
    }

    /** The samples, one per second, as a JSON array. */
    public String seriesJson() {
      return LabReport.seriesJson(samples);
    }

    /** The second the server was paused. */
    public int pausedAt() {
      return pausedAt;
    }

    /** The second the server was resumed. */
    public int resumedAt() {
      return resumedAt;
    }

    /** Why the run stopped before its time, or null. */
    public String stoppedEarly() {
      return stoppedEarly;
    }
  }

  /** Configures a {@link LabDemo}. Not thread-safe. */
  public static final class Builder {
    private int clients = 1000;
    private Duration think = Duration.ofSeconds(10);
    private Duration timeout = Duration.ofSeconds(2);
    private Duration warmup = Duration.ofSeconds(10);
    private Duration pause = Duration.ofSeconds(30);
    private Duration after = Duration.ofSeconds(30);
    private KneeLatency latency = KneeLatency.stormExperiment();
    private int backlog = 512;
    private int maxConnections = 4000;
    private List<String> policies = List.of("storm-fixed", "storm-exponential");

    Builder() {}

    /**
     * Clients per run.
     *
     * @throws IllegalArgumentException if not in 1..1,000,000
     */
    public Builder clients(int clients) {
      ClientFleet.builder().clients(clients);
      this.clients = clients;
      return this;
    }

    /**
     * Mean think time.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder think(Duration think) {
      ClientFleet.builder().think(think);
      this.think = think;
      return this;
    }

    /**
     * Per-attempt timeout.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder timeout(Duration timeout) {
      ClientFleet.builder().timeout(timeout);
      this.timeout = timeout;
      return this;
    }

    /**
     * Steady time before the pause.
     *
     * @throws IllegalArgumentException if shorter than 2 s (the baseline needs a second past the first)
     */
    public Builder warmup(Duration warmup) {
      this.warmup = atLeast("warmup", warmup, Duration.ofSeconds(2));
      return this;
    }

    /**
     * How long the server stays paused.
     *
     * @throws IllegalArgumentException if shorter than 1 s
     */
    public Builder pause(Duration pause) {
      this.pause = atLeast("pause", pause, Duration.ofSeconds(1));
      return this;
    }

    /**
     * How long to watch after the resume.
     *
     * @throws IllegalArgumentException if shorter than 1 s
     */
    public Builder after(Duration after) {
      this.after = atLeast("after", after, Duration.ofSeconds(1));
      return this;
    }

    /** The latency model (default: the retry-storm experiment's knee). */
    public Builder latency(KneeLatency latency) {
      if (latency == null) {
        throw new NullPointerException("latency must not be null");
      }
      this.latency = latency;
      return this;
    }

    /**
     * The server's accept backlog (default 512, as the simulator's).
     *
     * @throws IllegalArgumentException if below 1
     */
    public Builder backlog(int backlog) {
      LabServer.builder().backlog(backlog);
      this.backlog = backlog;
      return this;
    }

    /**
     * Requests a server may hold (default 4000); reaching it ends a run early as a storm.
     *
     * @throws IllegalArgumentException if below 1
     */
    public Builder maxConnections(int maxConnections) {
      LabServer.builder().maxConnections(maxConnections);
      this.maxConnections = maxConnections;
      return this;
    }

    /**
     * The policies to run, in order (see {@link LabPolicies}).
     *
     * @throws IllegalArgumentException if empty or a name is unknown
     */
    public Builder policies(List<String> policies) {
      if (policies == null || policies.isEmpty()) {
        throw new IllegalArgumentException("policies must not be empty");
      }
      for (String name : policies) {
        LabPolicies.named(name);
      }
      this.policies = List.copyOf(policies);
      return this;
    }

    /**
     * The demo.
     *
     * @throws IllegalStateException if {@code ulimit -n} is too low for the clients and the server together
     */
    public LabDemo build() {
      FileDescriptors.require((long) clients + maxConnections,
          "--clients " + clients + " and a server holding up to " + maxConnections + " requests");
      Builder copy = new Builder();
      copy.clients = clients;
      copy.think = think;
      copy.timeout = timeout;
      copy.warmup = warmup;
      copy.pause = pause;
      copy.after = after;
      copy.latency = latency;
      copy.backlog = backlog;
      copy.maxConnections = maxConnections;
      copy.policies = policies;
      return new LabDemo(copy);
    }

    private static Duration atLeast(String name, Duration value, Duration minimum) {
      if (value == null || value.compareTo(minimum) < 0) {
        throw new IllegalArgumentException(name + " must be at least " + minimum.toSeconds() + "s, was "
            + ClientFleet.show(value));
      }
      return value;
    }
  }
}
