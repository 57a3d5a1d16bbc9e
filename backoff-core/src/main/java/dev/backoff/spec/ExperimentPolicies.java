package dev.backoff.spec;

import dev.backoff.Backoff;
import dev.backoff.Jitter;
import dev.backoff.RetryPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The clients of the retry-storm experiment, registered here by name as data, so that every command, the
 * simulator, the lab and the Spring starter resolve them alike (see {@link PolicySpec#builder()}): the
 * policies the simulator's default scenario and the lab compare. They retry without limit, as the
 * experiment's clients did; they are not library presets (whose names mean the generic strategies
 * everywhere). Where a scenario or command sets an attempt limit, it applies to them too.
 *
 * <ul>
 *   <li>{@code storm-fixed}: a retry every 100 ms, no jitter (the same as {@code fixed} without a limit).
 *   <li>{@code storm-exponential}: 100 ms × e per retry up to 5 min, gaussian jitter of 0.1 of the delay.
 *       It follows the library's cap rule, unlike the original client, which added the noise after the cap.
 *   <li>{@code storm-exponential-full-jitter} (also {@code exponential-full-jitter}): the same with full
 *       jitter.
 *   <li>{@code storm-exponential-original} (also {@code exponential-original}, simulator only): the original
 *       client's first-retry quirk, its first retry after e × the think time.
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
public final class ExperimentPolicies {
  private ExperimentPolicies() {}

  private record Named(String description, Backoff backoff, boolean firstRetryQuirk) {}

  private static final Duration CAP = Duration.ofMinutes(5);
  private static final Map<String, Named> POLICIES = new LinkedHashMap<>();
  private static final Map<String, String> ALIASES = Map.of(
      "exponential-full-jitter", "storm-exponential-full-jitter",
      "exponential-original", "storm-exponential-original");

  static {
    Backoff exponential = Backoff.exponential(Duration.ofMillis(100), Math.E, CAP, Jitter.gaussian(0.1));
    POLICIES.put("storm-fixed", new Named("the retry-storm experiment's fixed client: 100ms before every retry, "
        + "no limit", Backoff.fixed(Duration.ofMillis(100)), false));
    POLICIES.put("storm-exponential", new Named("the experiment's exponential client: 100ms × e up to 5m, "
        + "gaussian jitter 0.1, no limit", exponential, false));
    POLICIES.put("storm-exponential-full-jitter", new Named("the exponential client with full jitter instead "
        + "(also exponential-full-jitter)", Backoff.exponential(Duration.ofMillis(100), Math.E, CAP, Jitter.full()),
        false));
    POLICIES.put("storm-exponential-original", new Named("the original exponential client's quirk: first retry "
        + "after e × the think time (simulator; also exponential-original)", exponential, true));
  }

  /** The canonical names, without aliases. */
  public static List<String> names() {
    return List.copyOf(POLICIES.keySet());
  }

  /** The canonical name for a name or alias (any case), or null if it is not an experiment policy. */
  public static String canonical(String name) {
    String key = name.trim().toLowerCase(Locale.ROOT);
    key = ALIASES.getOrDefault(key, key);
    return POLICIES.containsKey(key) ? key : null;
  }

  /**
   * What the policy is, for help texts.
   *
   * @throws IllegalArgumentException if the name is not an experiment policy
   */
  public static String describe(String name) {
    return named(name).description();
  }

  /**
   * The policy's backoff.
   *
   * @throws IllegalArgumentException if the name is not an experiment policy
   */
  public static Backoff backoff(String name) {
    return named(name).backoff();
  }

  /** True for the original client's first-retry quirk, which needs the simulator's think times. */
  public static boolean hasFirstRetryQuirk(String name) {
    return named(name).firstRetryQuirk();
  }

  /**
   * A builder for the policy: its backoff, no attempt limit, named {@code name} as given.
   *
   * @throws IllegalArgumentException if the name is not an experiment policy
   */
  public static <R> RetryPolicy.Builder<R> policy(String name) {
    return RetryPolicy.<R>builder().name(name).backoff(backoff(name)).unlimitedAttempts();
  }

  private static Named named(String name) {
    String key = canonical(name);
    if (key == null) {
      throw new IllegalArgumentException("unknown experiment policy '" + name + "'; known: "
          + String.join(", ", names()));
    }
    return POLICIES.get(key);
  }

  /**
   * Every policy name the simulator, the lab and the commands accept: these policies, then every strategy and
   * preset of {@link BackoffSpec#names()}. (Aliases are accepted too but not listed.)
   */
  public static List<String> allNames() {
    List<String> all = new ArrayList<>(POLICIES.keySet());
    all.addAll(BackoffSpec.names());
    return List.copyOf(all);
  }
}
