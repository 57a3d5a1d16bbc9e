package dev.backoff.it.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Compares a checked-in API baseline with the API the build made, and words a difference for a person: the
 * first differing lines as a unified diff ({@code -} only in the baseline, {@code +} only in the build), with
 * line numbers and a little context.
 */
public final class ApiDiff {
  /** How many changed lines a report shows before saying how many more there are. */
  static final int MAX_CHANGED_LINES = 30;
  private static final int CONTEXT = 2;

  private ApiDiff() {}

  /**
   * The difference between a baseline and the current API, or empty when they are equal.
   *
   * @param file the baseline's name, as the report should show it
   * @param baseline the checked-in text ({@code null} when there is no file yet)
   * @param current the text made from the build's classes
   * @return the report, or empty when the texts are equal
   */
  public static Optional<String> compare(String file, String baseline, String current) {
    if (current.equals(baseline)) {
      return Optional.empty();
    }
    if (baseline == null) {
      return Optional.of(file + ": no baseline yet (" + current.lines().count() + " lines of API to record)\n");
    }
    List<String> before = baseline.lines().toList();
    List<String> after = current.lines().toList();
    StringBuilder report = new StringBuilder(file).append(": the API differs from the baseline\n");
    List<String> edits = edits(before, after);
    boolean[] shown = new boolean[edits.size()];
    int changed = 0;
    int total = 0;
    for (int i = 0; i < edits.size(); i++) {
      if (edits.get(i).charAt(0) != ' ' && total++ < MAX_CHANGED_LINES) {
        changed++;
        for (int j = Math.max(0, i - CONTEXT); j <= Math.min(edits.size() - 1, i + CONTEXT); j++) {
          shown[j] = true;
        }
      }
    }
    for (int i = 0; i < edits.size(); i++) {
      if (!shown[i]) {
        continue;
      }
      if (i == 0 || !shown[i - 1]) {
        report.append("@@ baseline line ").append(lineOf(edits, i, '-')).append(", build line ")
            .append(lineOf(edits, i, '+')).append(" @@\n");
      }
      String edit = edits.get(i);
      boolean change = edit.charAt(0) != ' ';
      if (change && changed-- <= 0) {
        break;
      }
      report.append(edit.charAt(0)).append(' ').append(edit.substring(1)).append('\n');
    }
    if (total > MAX_CHANGED_LINES) {
      report.append("... and ").append(total - MAX_CHANGED_LINES).append(" more changed lines\n");
    }
    return Optional.of(report.toString());
  }

  /** The 1-based line number in the baseline ({@code '-'}) or the build ({@code '+'}) at an edit index. */
  private static int lineOf(List<String> edits, int index, char side) {
    int line = 1;
    for (int i = 0; i < index; i++) {
      char kind = edits.get(i).charAt(0);
      if (kind == ' ' || kind == side) {
        line++;
      }
    }
    return line;
  }

  /**
   * A shortest edit script as lines prefixed with ' ' (both), '-' (baseline only) or '+' (build only): the
   * common prefix and suffix as they are, a longest common subsequence in between.
   */
  static List<String> edits(List<String> before, List<String> after) {
    int prefix = 0;
    while (prefix < before.size() && prefix < after.size() && before.get(prefix).equals(after.get(prefix))) {
      prefix++;
    }
    int suffix = 0;
    while (suffix < before.size() - prefix && suffix < after.size() - prefix
        && before.get(before.size() - 1 - suffix).equals(after.get(after.size() - 1 - suffix))) {
      suffix++;
    }
    List<String> a = before.subList(prefix, before.size() - suffix);
    List<String> b = after.subList(prefix, after.size() - suffix);
    int[][] common = new int[a.size() + 1][b.size() + 1];
    for (int i = a.size() - 1; i >= 0; i--) {
      for (int j = b.size() - 1; j >= 0; j--) {
        common[i][j] = a.get(i).equals(b.get(j)) ? common[i + 1][j + 1] + 1
            : Math.max(common[i + 1][j], common[i][j + 1]);
      }
    }
    List<String> edits = new ArrayList<>();
    before.subList(0, prefix).forEach(line -> edits.add(" " + line));
    int i = 0;
    int j = 0;
    while (i < a.size() || j < b.size()) {
      if (i < a.size() && j < b.size() && a.get(i).equals(b.get(j))) {
        edits.add(" " + a.get(i++));
        j++;
      } else if (i < a.size() && (j == b.size() || common[i + 1][j] >= common[i][j + 1])) {
        edits.add("-" + a.get(i++)); // a removal before an addition, as unified diffs show a change
      } else {
        edits.add("+" + b.get(j++));
      }
    }
    before.subList(before.size() - suffix, before.size()).forEach(line -> edits.add(" " + line));
    return edits;
  }
}
