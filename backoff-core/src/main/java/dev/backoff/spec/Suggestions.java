package dev.backoff.spec;

import java.util.Collection;
import java.util.Locale;

/**
 * The closest known name to a mistyped one ({@code schedul} → {@code schedule}, {@code --stratgy} →
 * {@code --strategy}), for "did you mean" hints in the spec language's messages and the command line's. Close means a few typing mistakes apart (letters added,
 * dropped, changed or swapped: one per three letters typed, none for fewer than three), or a known name that starts with
 * what was typed; case does not count. Stateless and thread-safe.
 */
public final class Suggestions {
  private Suggestions() {}

  /**
   * The known name closest to {@code typed}, or null if none is close; on a tie the first in
   * {@code known}'s order.
   *
   * @throws NullPointerException if {@code typed} or {@code known} (or one of its names) is null
   */
  public static String closest(String typed, Collection<String> known) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    int allowed = typed.length() < 3 ? 0 : Math.max(1, typed.length() / 3);
    String lower = typed.toLowerCase(Locale.ROOT); // SCHEDULE is schedule mistyped, not a stranger
    for (String name : known) {
      int distance = distance(lower, name.toLowerCase(Locale.ROOT));
      boolean prefix = typed.length() >= 3 && name.toLowerCase(Locale.ROOT).startsWith(lower);
      if ((distance <= allowed || prefix) && distance < bestDistance) {
        best = name;
        bestDistance = distance;
      }
    }
    return best;
  }

  /** Edit distance counting an insertion, deletion, substitution or swap of neighbours as one. */
  static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
