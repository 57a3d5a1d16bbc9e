package dev.backoff.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A {@link TippingPoints.Scan} as a table (the runs that came back per length and policy, then what follows
 * from them), JSON and CSV. Stateless.
 */
public final class TippingPointsOutput {
  private TippingPointsOutput() {}

  /**
   * The scan: a line saying what was tested, the table of seeds that came back per tested length and policy,
   * and per policy the claims read off it: up to which length every seed came back, every range of lengths
   * at which some did not (with their verdicts), and whether recovery is monotone in the fault's length.
   */
  public static String table(TippingPoints.Scan scan) {
    StringBuilder out = new StringBuilder();
    List<Integer> lengths = scan.lengths();
    out.append("The first fault, ").append(scan.fault()).append(", at ").append(lengths.size())
        .append(lengths.size() == 1 ? " length" : " lengths").append(" from 1s to ").append(scan.upToSeconds())
        .append("s: every ").append(scan.gridSeconds())
        .append("s, and every ").append(scan.resolutionSeconds()).append("s between two lengths whose outcome ")
        .append("differs; ").append(seeds(scan)).append("; ").append(scan.runs()).append(scan.runs() == 1 ? " run.\n" : " runs.\n")
        .append("Each cell: the seeds in which the server came back (verdict ").append(cameBackLabels())
        .append(") of those run. Lengths ")
        .append("not listed were not tested.\n\n");
    List<String[]> rows = new ArrayList<>();
    String[] header = new String[scan.policies().size() + 1];
    header[0] = "fault";
    for (int p = 0; p < scan.policies().size(); p++) {
      header[p + 1] = scan.policies().get(p).policy();
    }
    rows.add(header);
    for (int i = 0; i < lengths.size(); i++) {
      String[] row = new String[header.length];
      row[0] = lengths.get(i) + "s";
      for (int p = 0; p < scan.policies().size(); p++) {
        TippingPoints.Length length = scan.policies().get(p).lengths().get(i);
        row[p + 1] = length.cameBack() + "/" + length.runs();
      }
      rows.add(row);
    }
    int[] widths = new int[header.length];
    for (String[] row : rows) {
      for (int c = 0; c < row.length; c++) {
        widths[c] = Math.max(widths[c], row[c].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int c = 0; c < row.length; c++) {
        line.append(c == 0 ? "" : "  ").append(" ".repeat(widths[c] - row[c].length())).append(row[c]);
      }
      out.append(line).append('\n');
    }
    out.append('\n');
    for (TippingPoints.PolicyScan policy : scan.policies()) {
      out.append(policy.policy()).append(":\n");
      for (String claim : claims(policy, scan.upToSeconds())) {
        out.append("  ").append(claim).append('\n');
      }
    }
    return out.toString();
  }

  /** The verdicts that count as coming back, as the table prints them ({@code yes or late}). */
  private static String cameBackLabels() {
    List<String> labels = new ArrayList<>();
    for (RecoveryVerdict verdict : RecoveryVerdict.values()) {
      if (TippingPoints.cameBack(verdict)) {
        labels.add(verdict.label());
      }
    }
    return labels.size() == 1 ? labels.get(0)
        : String.join(", ", labels.subList(0, labels.size() - 1)) + " or " + labels.get(labels.size() - 1);
  }

    private static String seeds(TippingPoints.Scan scan) {
    return scan.seeds() == 1 ? "seed " + scan.firstSeed()
        : scan.seeds() + " seeds (" + scan.firstSeed() + " to " + (scan.firstSeed() + scan.seeds() - 1) + ")";
  }

  /** What the policy's rows show, one sentence each: never more than the tested lengths and seeds. */
  static List<String> claims(TippingPoints.PolicyScan policy, int upToSeconds) {
    List<String> parts = new ArrayList<>();
    TippingPoints.Length[] against = policy.nonMonotone();
    if (against != null) {
      parts.add("not monotone: more seeds came back after a fault of " + against[1].faultSeconds() + "s ("
          + against[1].cameBack() + " of " + against[1].runs() + ") than after the shorter " + against[0].faultSeconds()
          + "s (" + against[0].cameBack() + " of " + against[0].runs() + "), so no single length is its tipping "
          + "point");
    }
    Integer upTo = policy.recoversUpToSeconds();
    if (upTo != null && upTo == upToSeconds) {
      parts.add("came back on every seed at every tested length, 1s to " + upToSeconds + "s");
    } else if (upTo != null) {
      parts.add("came back on every seed at every tested length up to " + upTo + "s");
    } else {
      parts.add("did not come back on every seed even at the shortest length, 1s");
    }
    for (TippingPoints.FailingRange range : policy.failing()) {
      int runs = policy.lengths().get(0).runs();
      String where = range.fromSeconds() == range.toSeconds() ? "at " + range.fromSeconds() + "s"
          : "at the tested lengths " + range.fromSeconds() + "s to " + range.toSeconds() + "s";
      String share = range.fewestCameBack() == range.mostCameBack() ? String.valueOf(range.fewestCameBack())
          : range.fewestCameBack() + " to " + range.mostCameBack();
      List<String> verdicts = new ArrayList<>();
      for (Map.Entry<RecoveryVerdict, Integer> entry : range.notBack().entrySet()) {
        verdicts.add(entry.getValue() + " " + entry.getKey().label());
      }
      parts.add("fails " + where + ": " + share + " of " + runs + (runs == 1 ? " seed" : " seeds") + " came back"
          + (range.fromSeconds() == range.toSeconds() ? "" : " at each") + " (the others: "
          + String.join(", ", verdicts) + ")");
    }
    return parts;
  }

  /**
   * {@code {"scan":{"fault":…,"fromSeconds":1,"upToSeconds":…,"gridSeconds":…,"resolutionSeconds":…,
   * "seeds":{"first":…,"last":…,"count":…},"runs":…},"policies":[{"policy":…,"monotone":…,
   * "recoversUpToSeconds":…|null,"firstFailingSeconds":…|null,"nonMonotone":{"shorterSeconds":…,
   * "longerSeconds":…}|null,"failing":[{"fromSeconds":…,"toSeconds":…,"fewestCameBack":…,"mostCameBack":…,
   * "notBack":{"not-recovered":…}}],"lengths":[{"faultSeconds":…,"runs":…,"cameBack":…,
   * "verdicts":["recovered",…]}]}]}}, each length's verdicts in seed order.
   */
  public static String json(TippingPoints.Scan scan) {
    Json json = Json.compact().object().field("scan").object().field("fault").string(scan.fault())
        .field("fromSeconds").number(1).field("upToSeconds").number(scan.upToSeconds())
        .field("gridSeconds").number(scan.gridSeconds()).field("resolutionSeconds").number(scan.resolutionSeconds())
        .field("seeds").object().field("first").number(scan.firstSeed())
        .field("last").number(scan.firstSeed() + scan.seeds() - 1).field("count").number(scan.seeds()).endObject()
        .field("runs").number(scan.runs()).endObject().field("policies").array();
    for (TippingPoints.PolicyScan policy : scan.policies()) {
      json.object().field("policy").string(policy.policy()).field("monotone").bool(policy.monotone())
          .field("recoversUpToSeconds").number(policy.recoversUpToSeconds())
          .field("firstFailingSeconds").number(policy.firstFailingSeconds()).field("nonMonotone");
      TippingPoints.Length[] against = policy.nonMonotone();
      if (against == null) {
        json.nullValue();
      } else {
        json.object().field("shorterSeconds").number(against[0].faultSeconds())
            .field("longerSeconds").number(against[1].faultSeconds()).endObject();
      }
      json.field("failing").array();
      for (TippingPoints.FailingRange range : policy.failing()) {
        json.object().field("fromSeconds").number(range.fromSeconds()).field("toSeconds").number(range.toSeconds())
            .field("fewestCameBack").number(range.fewestCameBack()).field("mostCameBack").number(range.mostCameBack())
            .field("notBack").object();
        for (Map.Entry<RecoveryVerdict, Integer> entry : range.notBack().entrySet()) {
          json.field(entry.getKey().id()).number(entry.getValue());
        }
        json.endObject().endObject();
      }
      json.endArray().field("lengths").array();
      for (TippingPoints.Length length : policy.lengths()) {
        json.object().field("faultSeconds").number(length.faultSeconds()).field("runs").number(length.runs())
            .field("cameBack").number(length.cameBack()).field("verdicts").array();
        for (RecoveryVerdict verdict : length.verdicts()) {
          json.string(verdict.id());
        }
        json.endArray().endObject();
      }
      json.endArray().endObject();
    }
    return json.endArray().endObject() + "\n";
  }

  /**
   * One line per policy and tested length: {@code policy,faultSeconds,runs,cameBack}, then how many runs had
   * each verdict (one column per verdict id, {@code recovered,late,not-recovered,…}).
   */
  public static String csv(TippingPoints.Scan scan) {
    StringBuilder out = new StringBuilder("policy,faultSeconds,runs,cameBack");
    for (RecoveryVerdict verdict : RecoveryVerdict.values()) {
      out.append(',').append(verdict.id());
    }
    out.append('\n');
    for (TippingPoints.PolicyScan policy : scan.policies()) {
      for (TippingPoints.Length length : policy.lengths()) {
        out.append(Output.csvField(policy.policy())).append(',').append(length.faultSeconds()).append(',')
            .append(length.runs()).append(',').append(length.cameBack());
        int[] counts = new int[RecoveryVerdict.values().length];
        for (RecoveryVerdict verdict : length.verdicts()) {
          counts[verdict.ordinal()]++;
        }
        for (int count : counts) {
          out.append(',').append(count);
        }
        out.append('\n');
      }
    }
    return out.toString();
  }
}
