package dev.backoff.sim;

/**
 * A storm-protection number of one run ({@link ProtectionSummary}, with the run's {@link Summary}), as
 * {@code simulate --seeds} compares them: goodput in the disturbance's second half against the server's
 * capacity and the offered load, goodput after it against the baseline, errors, the return to the baseline
 * and the concurrency limiter's refusals. Immutable.
 */
enum WindowMetric {
  GOODPUT("goodput", "goodputPerSecond", Unit.RATE),
  GOODPUT_OF_CAPACITY("goodput-of-capacity", "goodputOfCapacity", Unit.SHARE),
  GOODPUT_OF_STARTED("goodput-of-started", "goodputOfStarted", Unit.SHARE),
  AFTER_OF_BASELINE("after-of-baseline", "goodputAfterOfBaseline", Unit.SHARE),
  ERRORS("errors", "errorsPerSecond", Unit.RATE),
  BACK("back", "backSeconds", Unit.SECONDS),
  BACK_FROM_LAST_ERROR("back-from-last-error", "backFromLastErrorSeconds", Unit.SECONDS),
  FIRST_SHED("first-attempts-shed", "firstAttemptsShed", Unit.SHARE),
  RETRIES_SHED("retries-shed", "retriesShed", Unit.SHARE);

  enum Unit { RATE, SHARE, SECONDS }

  final String id;
  final String jsonName;
  final Unit unit;

  WindowMetric(String id, String jsonName, Unit unit) {
    this.id = id;
    this.jsonName = jsonName;
    this.unit = unit;
  }

  /** This number in one run; NaN where the run has none. */
  double of(Summary summary, ProtectionSummary p) {
    return switch (this) {
      case GOODPUT -> p.goodput();
      case GOODPUT_OF_CAPACITY -> p.capacity() > 0 ? p.goodput() / p.capacity() : Double.NaN;
      case GOODPUT_OF_STARTED -> p.started() > 0 ? p.goodput() / p.started() : Double.NaN;
      case AFTER_OF_BASELINE -> summary.baselineGoodput() > 0 ? summary.goodputAfterFault() / summary.baselineGoodput()
          : Double.NaN;
      case ERRORS -> p.errors();
      case BACK -> p.backSeconds();
      case BACK_FROM_LAST_ERROR -> p.backFromLastError();
      case FIRST_SHED -> p.firstShed();
      case RETRIES_SHED -> p.retriesShed();
    };
  }

  /** Whether a lower value is the worse one (goodput, shares of it); else a higher one is (errors, times). */
  boolean lowerIsWorse() {
    return this == GOODPUT || this == GOODPUT_OF_CAPACITY || this == GOODPUT_OF_STARTED || this == AFTER_OF_BASELINE;
  }

  /** A value as the table prints it: {@code 99.1}, {@code 98.8%}, {@code 7s}; {@code -} for NaN (as {@link Metric}). */
  String format(double value) {
    return switch (unit) {
      case RATE -> Double.isFinite(value) ? Values.format(value, 1) : Metric.AMPLIFICATION.format(value);
      case SHARE -> Metric.SUCCESS_RATIO.format(value);
      case SECONDS -> Metric.RECOVERY_TIME.format(value);
    };
  }
}
