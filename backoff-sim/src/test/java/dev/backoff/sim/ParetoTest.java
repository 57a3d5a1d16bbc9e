package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

class ParetoTest {
  record Point(String name, double x, double y) {}

  private static List<String> front(Point... points) {
    return Pareto.front(List.of(points), Point::x, Point::y).stream().map(Point::name).toList();
  }

  @Example
  void keepsExactlyTheUndominatedPoints() {
    // c has b's y with a larger x, e is worse than a on x and equal on y: both dominated.
    assertThat(front(new Point("a", 1, 5), new Point("b", 2, 3), new Point("c", 3, 3), new Point("d", 4, 1),
        new Point("e", 5, 5))).containsExactly("a", "b", "d");
  }

  @Example
  void equalPointsDoNotDominateEachOther() {
    assertThat(front(new Point("a", 2, 3), new Point("b", 2, 3), new Point("c", 2, 4))).containsExactly("a", "b");
  }

  @Example
  void oneBestPointDominatesEveryOther() {
    assertThat(front(new Point("a", 3, 3), new Point("b", 1, 1), new Point("c", 1, 2), new Point("d", 2, 1)))
        .containsExactly("b");
  }

  @Example
  void leavesOutIncomparablePointsAndKeepsInfiniteOnes() {
    assertThat(front(new Point("nan", Double.NaN, 0), new Point("a", 5, 5),
        new Point("inf", 0, Double.POSITIVE_INFINITY))).containsExactly("a", "inf");
    assertThat(front()).isEmpty();
    assertThat(front(new Point("only", 1, 1))).containsExactly("only");
  }

  @Example
  void inThreeMetricsAPointBestOnOneStaysOnTheFront() {
    record P(String name, double a, double b, double c) {}
    List<P> points = List.of(new P("low-a", 1, 9, 9), new P("low-b", 9, 1, 9), new P("low-c", 9, 9, 1),
        new P("middle", 5, 5, 5), new P("worse-than-middle", 5, 6, 5), new P("worst", 9, 9, 9));
    List<java.util.function.ToDoubleFunction<P>> metrics = List.of(P::a, P::b, P::c);
    assertThat(Pareto.front(points, metrics)).extracting(P::name)
        .containsExactly("low-a", "low-b", "low-c", "middle");
  }

  @Property(tries = 300)
  void theFrontIsExactlyTheUndominatedPoints(@ForAll @Size(max = 12) List<@IntRange(min = 0, max = 5) Integer> xs,
      @ForAll @Size(max = 12) List<@IntRange(min = 0, max = 5) Integer> ys) {
    List<Point> points = new ArrayList<>();
    for (int i = 0; i < Math.min(xs.size(), ys.size()); i++) {
      points.add(new Point("p" + i, xs.get(i), ys.get(i)));
    }
    List<Point> front = Pareto.front(points, Point::x, Point::y);
    for (Point p : points) {
      boolean dominated = points.stream().anyMatch(q -> q.x() <= p.x() && q.y() <= p.y() && (q.x() < p.x() || q.y() < p.y()));
      assertThat(front.contains(p)).as("%s", p).isEqualTo(!dominated);
    }
    if (!points.isEmpty()) {
      // Whatever the set, the point with the smallest x (smallest y among those) is on the front.
      Point corner = points.stream().min(java.util.Comparator.comparingDouble(Point::x).thenComparingDouble(Point::y))
          .orElseThrow();
      assertThat(front).contains(corner);
    }
  }
}
