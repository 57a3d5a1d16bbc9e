package dev.backoff.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The Pareto front of metrics to minimise: an item is on the front when no other item is at least as good on
 * every metric and strictly better on one. Stateless.
 */
final class Pareto {
  private Pareto() {}

  /**
   * The items on the front of two metrics, in their input order. Items with a NaN in either metric are left
   * out (they cannot be compared); items with equal values on both metrics are all on the front if one is
   * (neither dominates the other).
   */
  static <T> List<T> front(List<T> items, ToDoubleFunction<T> first, ToDoubleFunction<T> second) {
    return front(items, List.of(first, second));
  }

  /** As {@link #front(List, ToDoubleFunction, ToDoubleFunction)}, for any number of metrics to minimise. */
  static <T> List<T> front(List<T> items, List<ToDoubleFunction<T>> metrics) {
    double[][] values = new double[items.size()][metrics.size()];
    for (int i = 0; i < items.size(); i++) {
      for (int m = 0; m < metrics.size(); m++) {
        values[i][m] = metrics.get(m).applyAsDouble(items.get(i));
      }
    }
    List<T> front = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      if (hasNaN(values[i])) {
        continue;
      }
      boolean dominated = false;
      for (int j = 0; j < values.length && !dominated; j++) {
        dominated = dominates(values[j], values[i]);
      }
      if (!dominated) {
        front.add(items.get(i));
      }
    }
    return front;
  }

  private static boolean hasNaN(double[] point) {
    for (double value : point) {
      if (Double.isNaN(value)) {
        return true;
      }
    }
    return false;
  }

  /** True if {@code a} is at least as good as {@code b} on every metric and better on one (NaN never is). */
  private static boolean dominates(double[] a, double[] b) {
    boolean better = false;
    for (int m = 0; m < a.length; m++) {
      if (!(a[m] <= b[m])) {
        return false;
      }
      better |= a[m] < b[m];
    }
    return better;
  }
}
