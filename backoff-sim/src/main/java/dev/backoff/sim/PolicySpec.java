package dev.backoff.sim;

import dev.backoff.Backoff;
import dev.backoff.FailureClass;
import dev.backoff.Jitter;
import dev.backoff.Preset;
import dev.backoff.RetryBudget;
import dev.backoff.RetryPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeoutException;

/**
 * A named policy to simulate. Names are core {@link Preset} ids ({@code fixed}, {@code exponential},
 * {@code aws-standard}, ...), seed 003's {@code exponential-original} (the original client's first-retry
 * quirk), {@code exponential-full-jitter}, or strategies with parameters separated by colons:
 * {@code none}, {@code fixed:100ms}, {@code linear:100ms:100ms:5s}, {@code exponential:100ms:2:20s[:JITTER]},
 * {@code full-jitter:100ms:20s}, {@code equal-jitter:100ms:20s}, {@code decorrelated:100ms:20s},
 * {@code decorrelated-v2:100ms:20s}, {@code google-cloud:32s}; JITTER is none, full, equal,
 * proportional=F or gaussian=F. A {@code +budget} suffix attaches the scenario's retry budget.
 * Immutable.
 */
final class PolicySpec {
  /** The failure a timed-out attempt reports (a TimeoutException, so the core classifies it TIMEOUT). */
  static final Throwable TIMEOUT = new SimulatedTimeout();
  /** A refused or reset connection, or a 5xx error. */
  static final Throwable ERROR = new SimulatedFailure("connection refused or reset");
  /** A request the server shed (503 or 429). */
  static final Throwable REJECTED = new SimulatedFailure("request shed by the server");

  static final class SimulatedTimeout extends TimeoutException {
    private static final long serialVersionUID = 1L;

    SimulatedTimeout() {
      super("simulated timeout");
      setStackTrace(new StackTraceElement[0]);
    }
  }

  static final class SimulatedFailure extends Exception {
    private static final long serialVersionUID = 1L;

    SimulatedFailure(String message) {
      super(message, null, false, false);
    }
  }

  final String name;
  final boolean withBudget;
  final boolean firstRetryQuirk;
  private final Preset preset;
  private final Backoff backoff;

  private PolicySpec(String name, boolean withBudget, boolean firstRetryQuirk, Preset preset, Backoff backoff) {
    this.name = name;
    this.withBudget = withBudget;
    this.firstRetryQuirk = firstRetryQuirk;
    this.preset = preset;
    this.backoff = backoff;
  }

  static List<PolicySpec> parseAll(Object value) {
    List<PolicySpec> specs = new ArrayList<>();
    for (String name : Scenario.asStrings(value)) {
      PolicySpec spec = parse(name);
      for (PolicySpec other : specs) {
        if (other.name.equals(spec.name)) {
          throw new ScenarioException("policies", "policy '" + name + "' is listed twice");
        }
      }
      specs.add(spec);
    }
    if (specs.isEmpty()) {
      throw new ScenarioException("policies", "at least one policy is needed");
    }
    return List.copyOf(specs);
  }

  static PolicySpec parse(String text) {
    String name = text.trim();
    String body = name.toLowerCase(Locale.ROOT);
    boolean budget = false;
    if (body.endsWith("+budget")) {
      budget = true;
      body = body.substring(0, body.length() - "+budget".length());
    }
    if (body.equals("exponential-original")) {
      return new PolicySpec(name, budget, true, Preset.SEED_003_EXPONENTIAL, null);
    }
    if (body.equals("exponential-full-jitter")) {
      return new PolicySpec(name, budget, false, null,
          Backoff.exponential(Duration.ofMillis(100), Math.E, Duration.ofMinutes(5), Jitter.full()));
    }
    if (!body.contains(":") && !body.equals("none")) {
      try {
        return new PolicySpec(name, budget, false, Preset.byName(body), null);
      } catch (IllegalArgumentException e) {
        throw new ScenarioException("policies", "unknown policy '" + name + "': " + e.getMessage()
            + ", exponential-original, exponential-full-jitter; or a strategy such as full-jitter:100ms:20s");
      }
    }
    try {
      return new PolicySpec(name, budget, false, null, strategy(body.split(":")));
    } catch (ScenarioException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw new ScenarioException("policies", "bad policy '" + name + "': " + e.getMessage());
    }
  }

  private static Backoff strategy(String[] p) {
    switch (p[0]) {
      case "none":
        arity(p, 0);
        return Backoff.none();
      case "fixed":
        arity(p, 1);
        return Backoff.fixed(duration(p, 1));
      case "linear":
        arity(p, 3);
        return Backoff.linear(duration(p, 1), duration(p, 2), duration(p, 3));
      case "exponential":
        if (p.length != 4 && p.length != 5) {
          throw new ScenarioException("policies", "exponential takes INITIAL:MULTIPLIER:CAP[:JITTER], was " + String.join(":", p));
        }
        return Backoff.exponential(duration(p, 1), Values.doubleValue("policies", p[2]), duration(p, 3),
            p.length == 5 ? jitter(p[4]) : Jitter.none());
      case "full-jitter":
        arity(p, 2);
        return Backoff.exponential(duration(p, 1), 2, duration(p, 2), Jitter.full());
      case "equal-jitter":
        arity(p, 2);
        return Backoff.exponential(duration(p, 1), 2, duration(p, 2), Jitter.equal());
      case "decorrelated":
        arity(p, 2);
        return Backoff.decorrelated(duration(p, 1), duration(p, 2));
      case "decorrelated-v2":
        arity(p, 2);
        return Backoff.decorrelatedV2(duration(p, 1), duration(p, 2));
      case "google-cloud":
        arity(p, 1);
        return Backoff.googleCloud(duration(p, 1));
      default:
        throw new ScenarioException("policies", "unknown strategy '" + p[0]
            + "'; use none, fixed, linear, exponential, full-jitter, equal-jitter, decorrelated, decorrelated-v2, google-cloud");
    }
  }

  private static void arity(String[] p, int count) {
    if (p.length != count + 1) {
      throw new ScenarioException("policies", p[0] + " takes " + count + " parameter(s) separated by ':', was '"
          + String.join(":", p) + "'");
    }
  }

  private static Duration duration(String[] p, int index) {
    return Duration.ofNanos(Values.durationNanos("policies", p[index]));
  }

  private static Jitter jitter(String text) {
    if (text.equals("none")) {
      return Jitter.none();
    }
    if (text.equals("full")) {
      return Jitter.full();
    }
    if (text.equals("equal")) {
      return Jitter.equal();
    }
    if (text.startsWith("proportional=")) {
      return Jitter.proportional(Values.doubleValue("policies", text.substring("proportional=".length())));
    }
    if (text.startsWith("gaussian=")) {
      return Jitter.gaussian(Values.doubleValue("policies", text.substring("gaussian=".length())));
    }
    throw new ScenarioException("policies", "unknown jitter '" + text + "'; use none, full, equal, proportional=F, gaussian=F");
  }

  /** Builds the policy for one run; {@code budget} is that run's budget (or null without +budget). */
  RetryPolicy<Object> build(int maxAttempts, RetryBudget budget) {
    RetryPolicy.Builder<Object> builder;
    if (preset != null) {
      builder = preset.policy();
      builder.name(name);
    } else {
      builder = RetryPolicy.builder().name(name).backoff(backoff).maxAttempts(maxAttempts);
    }
    builder.classifyFailures(failure -> failure == REJECTED ? FailureClass.THROTTLED
        : failure == TIMEOUT ? FailureClass.TIMEOUT : FailureClass.TRANSIENT);
    builder.maxSuppressed(0);
    if (withBudget) {
      builder.budget(budget);
    }
    return builder.build();
  }

  /**
   * For {@code exponential-original}: the call's policy whose first retry waits e × the think time before
   * the call, as the original Go client did (its reset to the minimum delay after a success was overwritten
   * by the next think time), and grows by e from there.
   */
  static RetryPolicy<Object> withFirstRetryAfter(RetryPolicy<Object> policy, long thinkNanos) {
    long cap = Duration.ofMinutes(5).toNanos();
    long first = Math.max(1, Math.min(cap, (long) (Math.E * thinkNanos)));
    return policy.toBuilder()
        .backoff(Backoff.exponential(Duration.ofNanos(first), Math.E, Duration.ofNanos(cap), Jitter.gaussian(0.1)))
        .build();
  }

  @Override
  public String toString() {
    return name;
  }
}
