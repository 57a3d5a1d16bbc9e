package dev.backoff.spring.boot;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code backoff.*} configuration properties: named retry policies, named retry budgets they share,
 * and the policies applied to Spring's HTTP client builders. Unknown keys fail the context (a typo is an
 * error, never ignored); values are checked when the context starts, and a bad one fails it with a
 * message naming the property and the value.
 *
 * <pre>
 * backoff:
 *   budgets:
 *     downstream:
 *       spec: token-bucket:500:5:10
 *   policies:
 *     payments:
 *       strategy: exponential:100ms:2:20s:full
 *       max-attempts: 5
 *       max-elapsed: 30s
 *       retry-on: java.io.IOException
 *       budget: downstream
 *     catalog:
 *       max-attempts: 3
 *       circuit-breaker:
 *         failure-rate-threshold: 50%
 *         window: 20
 *       rate-limiter:
 *         max-wait: 5s
 *       hedging:
 *         delay: 50ms
 *         max-hedges: 2
 * </pre>
 *
 * <p>Durations use Backoff's syntax ({@code 250ms}, {@code 1.5s}, {@code 2m}, or ISO-8601
 * {@code PT1S}); a bare number is refused, since its unit would be a guess. A mutable JavaBean for
 * Spring's binder; not thread-safe while being bound, read-only afterwards.
 */
@ConfigurationProperties(prefix = "backoff", ignoreUnknownFields = false)
public class BackoffProperties {
  /** Settings at their defaults, which Spring Boot's binder then fills in from the properties. */
  public BackoffProperties() {
    // the binder calls the setters
  }

  /** Named retry policies, {@code backoff.policies.<name>.*}; the name is what {@code @BackoffRetry} refers to. */
  private Map<String, Policy> policies = new LinkedHashMap<>();

  /** Named retry budgets, {@code backoff.budgets.<name>.*}, shared by every policy that names them. */
  private Map<String, Budget> budgets = new LinkedHashMap<>();

  /** Policies applied to the HTTP client builders Spring Boot configures. */
  private Http http = new Http();

  /** The named policies; never null. */
  public Map<String, Policy> getPolicies() {
    return policies;
  }

  /** Sets the named policies (the binder's). */
  public void setPolicies(Map<String, Policy> policies) {
    this.policies = policies;
  }

  /** The named budgets; never null. */
  public Map<String, Budget> getBudgets() {
    return budgets;
  }

  /** Sets the named budgets (the binder's). */
  public void setBudgets(Map<String, Budget> budgets) {
    this.budgets = budgets;
  }

  /** The HTTP client settings; never null. */
  public Http getHttp() {
    return http;
  }

  /** Sets the HTTP client settings (the binder's). */
  public void setHttp(Http http) {
    this.http = http;
  }

  /** One named policy, {@code backoff.policies.<name>.*}. Unset fields keep the library's defaults. */
  public static class Policy {
    /** Settings at their defaults, which Spring Boot's binder then fills in from the properties. */
    public Policy() {
      // the binder calls the setters
    }

    /**
     * Backoff strategy or preset in Backoff's spec grammar, such as {@code exponential:100ms:2:20s:full},
     * {@code full-jitter}, {@code decorrelated-v2:50ms:10s} or the preset {@code aws-standard} (a preset
     * also sets its attempts and deadline, which the keys below override). Default: exponential backoff
     * with full jitter (100 ms doubling, capped at 20 s).
     */
    private String strategy;

    /** Maximum number of attempts, the first included (at least 1). Default 3, or the preset's. */
    private Integer maxAttempts;

    /** Deadline for the whole call, first attempt to last, such as {@code 30s}. Default: none, or the preset's. */
    private String maxElapsed;

    /** Timeout of each attempt, such as {@code 2s}. Default: none. */
    private String attemptTimeout;

    /**
     * Exception types (fully qualified class names) that are retried, also as a cause. Default: every
     * {@code Exception}.
     */
    private List<Class<?>> retryOn = new ArrayList<>();

    /** Exception types (fully qualified class names) that stop the call at once, also as a cause; they win over retry-on. */
    private List<Class<?>> abortOn = new ArrayList<>();

    /**
     * HTTP statuses retried when this policy drives an HTTP client (the RestClient and WebClient
     * customizers). Default: 429, 500, 502, 503, 504.
     */
    private List<Integer> retryOnStatuses = new ArrayList<>();

    /**
     * Response headers read as the server's wait beside {@code Retry-After} when this policy drives an HTTP
     * client: {@code retry-after-ms}, {@code x-amz-retry-after}, {@code X-RateLimit-Reset}, {@code RateLimit}
     * (the IETF RateLimit/RateLimit-Policy fields) or {@code all}. Default: {@code Retry-After} alone.
     */
    private List<String> waitHeaders = new ArrayList<>();

    /** Name of a budget under {@code backoff.budgets} that this policy draws on. Default: none. */
    private String budget;

    /**
     * Longest server pushback (such as {@code Retry-After}) honoured, such as {@code 1m}; a longer one
     * ends the call. Default: the library's.
     */
    private String maxPushback;

    /**
     * A circuit breaker for this policy, shared by every call under it. Default: none; on once any of its
     * keys is set (unless {@code enabled} is false).
     */
    private CircuitBreakerSettings circuitBreaker;

    /**
     * An adaptive client-side rate limiter for this policy, shared by every call under it. Default: none; on
     * once any of its keys is set (unless {@code enabled} is false).
     */
    private RateLimiterSettings rateLimiter;

    /**
     * Hedging for this policy's asynchronous calls. Default: none; on once any of its keys is set (unless
     * {@code enabled} is false), and then {@code delay} is required.
     */
    private HedgingSettings hedging;

    /**
     * An adaptive concurrency limit for this policy, shared by every call under it: a limit on attempts in
     * flight that sheds retries before first attempts. Default: none; on once any of its keys is set (unless
     * {@code enabled} is false). Not with hedging.
     */
    private ConcurrencyLimiterSettings concurrencyLimiter;

    /** The strategy or preset spec, or null. */
    public String getStrategy() {
      return strategy;
    }

    /** Sets the strategy or preset spec. */
    public void setStrategy(String strategy) {
      this.strategy = strategy;
    }

    /** The maximum number of attempts, or null for the default. */
    public Integer getMaxAttempts() {
      return maxAttempts;
    }

    /** Sets the maximum number of attempts. */
    public void setMaxAttempts(Integer maxAttempts) {
      this.maxAttempts = maxAttempts;
    }

    /** The deadline as written, or null. */
    public String getMaxElapsed() {
      return maxElapsed;
    }

    /** Sets the deadline ({@code 30s}). */
    public void setMaxElapsed(String maxElapsed) {
      this.maxElapsed = maxElapsed;
    }

    /** The attempt timeout as written, or null. */
    public String getAttemptTimeout() {
      return attemptTimeout;
    }

    /** Sets the attempt timeout ({@code 2s}). */
    public void setAttemptTimeout(String attemptTimeout) {
      this.attemptTimeout = attemptTimeout;
    }

    /** The retried exception types; never null. */
    public List<Class<?>> getRetryOn() {
      return retryOn;
    }

    /** Sets the retried exception types. */
    public void setRetryOn(List<Class<?>> retryOn) {
      this.retryOn = retryOn;
    }

    /** The aborting exception types; never null. */
    public List<Class<?>> getAbortOn() {
      return abortOn;
    }

    /** Sets the aborting exception types. */
    public void setAbortOn(List<Class<?>> abortOn) {
      this.abortOn = abortOn;
    }

    /** The retried HTTP statuses; empty for the HTTP rules' defaults. */
    public List<Integer> getRetryOnStatuses() {
      return retryOnStatuses;
    }

    /** Sets the retried HTTP statuses. */
    public void setRetryOnStatuses(List<Integer> retryOnStatuses) {
      this.retryOnStatuses = retryOnStatuses;
    }

    /** The extra wait headers as written; empty for {@code Retry-After} alone. */
    public List<String> getWaitHeaders() {
      return waitHeaders;
    }

    /** Sets the extra wait headers. */
    public void setWaitHeaders(List<String> waitHeaders) {
      this.waitHeaders = waitHeaders;
    }

    /** The budget's name, or null. */
    public String getBudget() {
      return budget;
    }

    /** Sets the budget's name. */
    public void setBudget(String budget) {
      this.budget = budget;
    }

    /** The longest pushback as written, or null. */
    public String getMaxPushback() {
      return maxPushback;
    }

    /** Sets the longest pushback ({@code 1m}). */
    public void setMaxPushback(String maxPushback) {
      this.maxPushback = maxPushback;
    }

    /** The circuit breaker's settings, or null if none was configured. */
    public CircuitBreakerSettings getCircuitBreaker() {
      return circuitBreaker;
    }

    /** Sets the circuit breaker's settings (the binder's). */
    public void setCircuitBreaker(CircuitBreakerSettings circuitBreaker) {
      this.circuitBreaker = circuitBreaker;
    }

    /** The rate limiter's settings, or null if none was configured. */
    public RateLimiterSettings getRateLimiter() {
      return rateLimiter;
    }

    /** Sets the rate limiter's settings (the binder's). */
    public void setRateLimiter(RateLimiterSettings rateLimiter) {
      this.rateLimiter = rateLimiter;
    }

    /** The hedging settings, or null if none was configured. */
    public HedgingSettings getHedging() {
      return hedging;
    }

    /** Sets the hedging settings (the binder's). */
    public void setHedging(HedgingSettings hedging) {
      this.hedging = hedging;
    }

    /** The concurrency limiter's settings, or null if none was configured. */
    public ConcurrencyLimiterSettings getConcurrencyLimiter() {
      return concurrencyLimiter;
    }

    /** Sets the concurrency limiter's settings (the binder's). */
    public void setConcurrencyLimiter(ConcurrencyLimiterSettings concurrencyLimiter) {
      this.concurrencyLimiter = concurrencyLimiter;
    }
  }

  /**
   * A policy's concurrency limiter, {@code backoff.policies.<name>.concurrency-limiter.*}: the limiter of the
   * spec language's {@code +concurrency[:ALGORITHM][:KEY=VALUE...]}, with the same keys and defaults. A key
   * left unset keeps its default; a key of another algorithm fails the context.
   */
  public static class ConcurrencyLimiterSettings {
    /** Settings at their defaults, which Spring Boot's binder then fills in from the properties. */
    public ConcurrencyLimiterSettings() {
      // the binder calls the setters
    }

    /** Whether the limiter is on. Default true once the block is there; false turns it off (a profile's override). */
    private Boolean enabled;

    /**
     * {@code gradient} (a latency gradient in the style of TCP Vegas), {@code aimd} (additive increase,
     * multiplicative decrease) or {@code fixed} (a static bulkhead of {@code limit} slots). Default gradient.
     */
    private String algorithm;

    /** The fixed algorithm's limit, 1 to 65536. Required with {@code algorithm=fixed}, refused with the others. */
    private Integer limit;

    /** Gradient and aimd: the limit before any sample, within [min, max]. Default 20 (or the nearest bound). */
    private Integer initial;

    /** Gradient and aimd: the smallest limit, 1 to 65536. Default 1. */
    private Integer min;

    /** Gradient and aimd: the largest limit, 1 to 65536 (one reusable permit per slot). Default 1000. */
    private Integer max;

    /** The share of the limit retries and hedges may fill, in (0, 1]; 1 treats them as first attempts. Default 0.8. */
    private String retryShare;

    /** Gradient and aimd: what a drop (a 429/503-style answer or a timeout) multiplies the limit by, in (0, 1). Default 0.9. */
    private String backoffRatio;

    /** Aimd: the latency above which a success counts as a drop, such as {@code 2s}. Default 5s. */
    private String latencyThreshold;

    /** Gradient: how far one sample moves the limit toward its target, in (0, 1]. Default 0.2. */
    private String smoothing;

    /** Gradient: the attempts allowed to queue above what the minimum latency explains, 0 or more. Default 4. */
    private String queueAllowance;

    /** Gradient: how long a minimum latency is trusted before it is measured again, such as {@code 30s}. Default 30s. */
    private String minRttWindow;

    /** Whether the limiter is on, or null (on). */
    public Boolean getEnabled() {
      return enabled;
    }

    /** Turns the limiter on or off. */
    public void setEnabled(Boolean enabled) {
      this.enabled = enabled;
    }

    /** The algorithm as written, or null. */
    public String getAlgorithm() {
      return algorithm;
    }

    /** Sets the algorithm ({@code gradient}, {@code aimd}, {@code fixed}). */
    public void setAlgorithm(String algorithm) {
      this.algorithm = algorithm;
    }

    /** The fixed limit, or null. */
    public Integer getLimit() {
      return limit;
    }

    /** Sets the fixed limit. */
    public void setLimit(Integer limit) {
      this.limit = limit;
    }

    /** The initial limit, or null. */
    public Integer getInitial() {
      return initial;
    }

    /** Sets the initial limit. */
    public void setInitial(Integer initial) {
      this.initial = initial;
    }

    /** The smallest limit, or null. */
    public Integer getMin() {
      return min;
    }

    /** Sets the smallest limit. */
    public void setMin(Integer min) {
      this.min = min;
    }

    /** The largest limit, or null. */
    public Integer getMax() {
      return max;
    }

    /** Sets the largest limit. */
    public void setMax(Integer max) {
      this.max = max;
    }

    /** The retry share as written, or null. */
    public String getRetryShare() {
      return retryShare;
    }

    /** Sets the retry share ({@code 0.8}). */
    public void setRetryShare(String retryShare) {
      this.retryShare = retryShare;
    }

    /** The backoff ratio as written, or null. */
    public String getBackoffRatio() {
      return backoffRatio;
    }

    /** Sets the backoff ratio ({@code 0.9}). */
    public void setBackoffRatio(String backoffRatio) {
      this.backoffRatio = backoffRatio;
    }

    /** The latency threshold as written, or null. */
    public String getLatencyThreshold() {
      return latencyThreshold;
    }

    /** Sets the latency threshold ({@code 5s}). */
    public void setLatencyThreshold(String latencyThreshold) {
      this.latencyThreshold = latencyThreshold;
    }

    /** The smoothing as written, or null. */
    public String getSmoothing() {
      return smoothing;
    }

    /** Sets the smoothing ({@code 0.2}). */
    public void setSmoothing(String smoothing) {
      this.smoothing = smoothing;
    }

    /** The queue allowance as written, or null. */
    public String getQueueAllowance() {
      return queueAllowance;
    }

    /** Sets the queue allowance ({@code 4}). */
    public void setQueueAllowance(String queueAllowance) {
      this.queueAllowance = queueAllowance;
    }

    /** The min-RTT window as written, or null. */
    public String getMinRttWindow() {
      return minRttWindow;
    }

    /** Sets the min-RTT window ({@code 30s}). */
    public void setMinRttWindow(String minRttWindow) {
      this.minRttWindow = minRttWindow;
    }
  }

  /**
   * A policy's circuit breaker, {@code backoff.policies.<name>.circuit-breaker.*}: the breaker of the spec
   * language's {@code +breaker[:RATE[:WINDOW[:WAIT[:TRIALS]]]]}, with the same defaults. A key left unset
   * keeps its default.
   */
  public static class CircuitBreakerSettings {
    /** Settings at their defaults, which Spring Boot's binder then fills in from the properties. */
    public CircuitBreakerSettings() {
      // the binder calls the setters
    }

    /** Whether the breaker is on. Default true once the block is there; false turns it off (a profile's override). */
    private Boolean enabled;

    /** Failure rate, in percent of the window's calls, at or above which the breaker opens, in (0, 100]; {@code 50} or {@code 50%}. Default 50%. */
    private String failureRateThreshold;

    /**
     * The window the failure rate is measured over: a whole number of calls (the last N calls, which must all
     * be in before the rate counts), or a duration such as {@code 10s} (the calls of that time, counted from
     * 10 calls on). Default 20 calls.
     */
    private String window;

    /** How long the breaker stays open before it lets trial calls through, such as {@code 30s}. Default 30s. */
    private String waitInOpen;

    /** Trial calls the half-open breaker lets through at a time; all must succeed to close it. Default 3. */
    private Integer trialCalls;

    /** Whether the breaker is on, or null (on). */
    public Boolean getEnabled() {
      return enabled;
    }

    /** Turns the breaker on or off. */
    public void setEnabled(Boolean enabled) {
      this.enabled = enabled;
    }

    /** The failure rate threshold as written, or null. */
    public String getFailureRateThreshold() {
      return failureRateThreshold;
    }

    /** Sets the failure rate threshold ({@code 50%}). */
    public void setFailureRateThreshold(String failureRateThreshold) {
      this.failureRateThreshold = failureRateThreshold;
    }

    /** The window as written, or null. */
    public String getWindow() {
      return window;
    }

    /** Sets the window ({@code 20} calls or {@code 10s}). */
    public void setWindow(String window) {
      this.window = window;
    }

    /** The wait in open as written, or null. */
    public String getWaitInOpen() {
      return waitInOpen;
    }

    /** Sets the wait in open ({@code 30s}). */
    public void setWaitInOpen(String waitInOpen) {
      this.waitInOpen = waitInOpen;
    }

    /** The trial calls, or null for the default. */
    public Integer getTrialCalls() {
      return trialCalls;
    }

    /** Sets the trial calls. */
    public void setTrialCalls(Integer trialCalls) {
      this.trialCalls = trialCalls;
    }
  }

  /**
   * A policy's adaptive rate limiter, {@code backoff.policies.<name>.rate-limiter.*}: the limiter of the spec
   * language's {@code +adaptive[:wait|fail|MAX_WAIT]} (AWS's adaptive retry mode, with the AWS SDKs' constants).
   */
  public static class RateLimiterSettings {
    /** Settings at their defaults, which Spring Boot's binder then fills in from the properties. */
    public RateLimiterSettings() {
      // the binder calls the setters
    }

    /** Whether the limiter is on. Default true once the block is there; false turns it off (a profile's override). */
    private Boolean enabled;

    /**
     * How long an attempt may wait for its token: {@code wait} (as long as it takes), {@code fail} (not at
     * all: the attempt is refused when no token is there) or a duration such as {@code 5s}. Default
     * {@code wait}.
     */
    private String maxWait;

    /** Whether the limiter is on, or null (on). */
    public Boolean getEnabled() {
      return enabled;
    }

    /** Turns the limiter on or off. */
    public void setEnabled(Boolean enabled) {
      this.enabled = enabled;
    }

    /** The maximum wait as written, or null. */
    public String getMaxWait() {
      return maxWait;
    }

    /** Sets the maximum wait ({@code wait}, {@code fail} or {@code 5s}). */
    public void setMaxWait(String maxWait) {
      this.maxWait = maxWait;
    }
  }

  /**
   * A policy's hedging, {@code backoff.policies.<name>.hedging.*}: the hedging of the spec language's
   * {@code +hedge:DELAY[:MAX]}, or with {@code delay: p95} its adaptive delay ({@code +hedge:p95[:MAX][:KEY=VALUE...]}:
   * the delay follows that quantile of recent call latencies, and {@code max-extra-load} caps the hedges; one
   * live delay per policy). Only asynchronous calls hedge ({@code CompletionStage} and {@code Mono}
   * methods, the WebClient filter); a plain or {@code Flux} method, or the RestClient customizer, naming a
   * hedging policy fails the context.
   */
  public static class HedgingSettings {
    /** Settings at their defaults, which Spring Boot's binder then fills in from the properties. */
    public HedgingSettings() {
      // the binder calls the setters
    }

    /** Whether hedging is on. Default true once the block is there; false turns it off (a profile's override). */
    private Boolean enabled;

    /**
     * How long an attempt may go unanswered before the next one starts alongside it, such as {@code 50ms}
     * (about the call's 95th-percentile latency), or a quantile of recent call latencies, such as {@code p95}
     * (the adaptive delay, which the keys below tune). Required.
     */
    private String delay;

    /** Adaptive delay: the least delay, such as {@code 5ms}. Default 1ms. */
    private String minDelay;

    /** Adaptive delay: the greatest delay, such as {@code 2s}. Default 10s. */
    private String maxDelay;

    /** Adaptive delay: the delay until {@code warm-up} latencies are known. Default the max-delay. */
    private String initialDelay;

    /** Adaptive delay: the most hedges per first attempt, in (0, 1], such as {@code 0.05}. Default 0.05. */
    private String maxExtraLoad;

    /** Adaptive delay: how many recent latencies the quantile is taken over, 10 to 1000000. Default 1000. */
    private Integer window;

    /** Adaptive delay: how many latencies must be known first, 1 to the window. Default 100 (or the window). */
    private Integer warmUp;

    /**
     * The most hedges besides the first attempt, 1 to 10; {@code max-attempts} must allow them (at least
     * {@code max-hedges + 1}). Default 1.
     */
    private Integer maxHedges;

    /** Whether hedging is on, or null (on). */
    public Boolean getEnabled() {
      return enabled;
    }

    /** Turns hedging on or off. */
    public void setEnabled(Boolean enabled) {
      this.enabled = enabled;
    }

    /** The hedging delay as written, or null. */
    public String getDelay() {
      return delay;
    }

    /** Sets the hedging delay ({@code 50ms}). */
    public void setDelay(String delay) {
      this.delay = delay;
    }

    /** The most hedges, or null for the default. */
    public Integer getMaxHedges() {
      return maxHedges;
    }

    /** Sets the most hedges. */
    public void setMaxHedges(Integer maxHedges) {
      this.maxHedges = maxHedges;
    }

    /** The adaptive delay's least delay as written, or null. */
    public String getMinDelay() {
      return minDelay;
    }

    /** Sets the adaptive delay's least delay. */
    public void setMinDelay(String minDelay) {
      this.minDelay = minDelay;
    }

    /** The adaptive delay's greatest delay as written, or null. */
    public String getMaxDelay() {
      return maxDelay;
    }

    /** Sets the adaptive delay's greatest delay. */
    public void setMaxDelay(String maxDelay) {
      this.maxDelay = maxDelay;
    }

    /** The adaptive delay's initial delay as written, or null. */
    public String getInitialDelay() {
      return initialDelay;
    }

    /** Sets the adaptive delay's initial delay. */
    public void setInitialDelay(String initialDelay) {
      this.initialDelay = initialDelay;
    }

    /** The cap on hedges per first attempt as written, or null. */
    public String getMaxExtraLoad() {
      return maxExtraLoad;
    }

    /** Sets the cap on hedges per first attempt. */
    public void setMaxExtraLoad(String maxExtraLoad) {
      this.maxExtraLoad = maxExtraLoad;
    }

    /** The adaptive delay's window, or null. */
    public Integer getWindow() {
      return window;
    }

    /** Sets the adaptive delay's window. */
    public void setWindow(Integer window) {
      this.window = window;
    }

    /** The adaptive delay's warm-up, or null. */
    public Integer getWarmUp() {
      return warmUp;
    }

    /** Sets the adaptive delay's warm-up. */
    public void setWarmUp(Integer warmUp) {
      this.warmUp = warmUp;
    }
  }

  /** One named budget, {@code backoff.budgets.<name>.*}. */
  public static class Budget {
    /** Settings at their defaults, which Spring Boot's binder then fills in from the properties. */
    public Budget() {
      // the binder calls the setters
    }

    /**
     * The budget in Backoff's budget grammar: {@code token-bucket[:CAPACITY:COST:TIMEOUT_COST]} (AWS's
     * retry quota; defaults 500, 5, 10), {@code grpc[:MAX_TOKENS:TOKEN_RATIO]} (gRPC retry throttling;
     * 10, 0.1) or {@code ratio[:RATIO:MIN_PER_SECOND:WINDOW]} (retries as a share of calls; 0.2, 10,
     * 10s). Required.
     */
    private String spec;

    /** The budget spec, or null if unset. */
    public String getSpec() {
      return spec;
    }

    /** Sets the budget spec. */
    public void setSpec(String spec) {
      this.spec = spec;
    }
  }

  /** The policies applied to Spring Boot's HTTP client builders (needs backoff-spring-web). */
  public static class Http {
    /** Settings at their defaults, which Spring Boot's binder then fills in from the properties. */
    public Http() {
      // the binder calls the setters
    }

    /** Name of the policy every RestClient built from Spring Boot's RestClient.Builder retries with. Default: none (no retries). */
    private String restClientPolicy;

    /** Name of the policy every WebClient built from Spring Boot's WebClient.Builder retries with. Default: none (no retries). */
    private String webClientPolicy;

    /** The RestClient policy's name, or null. */
    public String getRestClientPolicy() {
      return restClientPolicy;
    }

    /** Sets the RestClient policy's name. */
    public void setRestClientPolicy(String restClientPolicy) {
      this.restClientPolicy = restClientPolicy;
    }

    /** The WebClient policy's name, or null. */
    public String getWebClientPolicy() {
      return webClientPolicy;
    }

    /** Sets the WebClient policy's name. */
    public void setWebClientPolicy(String webClientPolicy) {
      this.webClientPolicy = webClientPolicy;
    }
  }
}
