package dev.backoff.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The Pareto front of two metrics to minimise: an item is on the front when no other item is at least as good
 * on both and strictly better on one. Stateless.
 */
final class Pareto {
  private Pareto() {}

  /**
   * The items on the front, in their input order. Items with a NaN in either metric are left out (they cannot
   * be compared); items with equal values on both metrics are all on the front if one is (neither dominates
   * the other).
   */
  static <T> List<T> front(List<T> items, ToDoubleFunction<T> first, ToDoubleFunction<T> second) {
    List<T> front = new ArrayList<>();
    for (T item : items) {
      double a = first.applyAsDouble(item);
      double b = second.applyAsDouble(item);
      if (Double.isNaN(a) || Double.isNaN(b)) {
        continue;
      }
      boolean dominated = false;
      for (T other : items) {
        double x = first.applyAsDouble(other);
        double y = second.applyAsDouble(other);
        if (x <= a && y <= b && (x < a || y < b)) {
          dominated = true;
          break;
        }
      }
      if (!dominated) {
        front.add(item);
      }
    }
    return front;
  }
}
