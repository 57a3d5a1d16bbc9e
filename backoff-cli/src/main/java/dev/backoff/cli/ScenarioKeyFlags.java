package dev.backoff.cli;

import dev.backoff.sim.Scenario;
import dev.backoff.sim.ScenarioException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Command-line flags generated from the simulator's one key table ({@link Scenario#keys()}): the same name,
 * description and default, and the same validation and messages, for {@code simulate} and the lab's
 * commands, so a flag means one thing everywhere. Stateless.
 */
final class ScenarioKeyFlags {
  private ScenarioKeyFlags() {}

  /** The latency model's keys, shared by {@code lab server} and {@code lab demo}. */
  static final List<String> KNEE = List.of("base-latency", "knee-limit", "knee-factor", "knee-k", "backlog");
  /** The client fleet's keys, shared by {@code lab client} and {@code lab demo}. */
  static final List<String> FLEET = List.of("clients", "think-mean", "timeout");
  /** The keys of a live pause-and-resume run and its simulation: {@link #FLEET}, then {@link #KNEE}. */
  static final List<String> FLEET_AND_KNEE = java.util.stream.Stream.concat(FLEET.stream(), KNEE.stream()).toList();

  /** Adds {@code --KEY VALUE} for each of these keys ({@code null}: every key). */
  static CommandSpec add(CommandSpec command, List<String> keys) {
    for (Scenario.Key key : Scenario.keys()) {
      if (keys == null || keys.contains(key.name())) {
        command.addOption(OptionSpec.builder("--" + key.name())
            .paramLabel(placeholder(key.name(), key.defaultValue()))
            .type(String.class)
            .description((capitalized(key.description()) + ". Default: " + key.defaultValue() + ".")
                .replace("%", "%%"))
            .build());
      }
    }
    return command;
  }

  /**
   * The placeholder a key's flag shows in help: the type of its value ({@code <duration>}, {@code <count>},
   * {@code <number>}), or its choices ({@code closed|open}), never the key's own name. Keys whose default does
   * not show the type are listed by name; the rest are typed by their default (a duration such as
   * {@code 400s}, or a whole number). A key neither listed nor typed by its default shows {@code <value>},
   * which a test refuses, so a new key cannot slip into the help untyped.
   */
  static String placeholder(String name, String defaultValue) {
    return switch (name) {
      case "policies" -> "<spec>[,<spec>...]";
      case "faults" -> "<fault>[,<fault>...]";
      case "budget" -> "<budget>";
      case "client" -> "closed|open";
      case "breaker-scope" -> "shared|per-client";
      case "rate-profile" -> "constant|step|spike|ramp";
      case "server" -> "knee|linear|pool";
      case "queue-order" -> "fifo|lifo";
      case "pause-overflow" -> "drop|close|reconnect";
      case "service-distribution" -> "fixed|exponential";
      case "reject-status" -> "503|429";
      case "retry-after" -> "none|<duration>";
      case "seed" -> "<integer>";
      case "max-attempts" -> "<count>";
      case "rate", "rate-peak", "knee-factor", "knee-k" -> "<number>";
      default -> typeOf(defaultValue);
    };
  }

  private static String typeOf(String defaultValue) {
    if (defaultValue.matches("[0-9]+")) {
      return "<count>";
    }
    try {
      dev.backoff.spec.Durations.parse(defaultValue);
      return "<duration>";
    } catch (IllegalArgumentException notADuration) {
      return "<value>";
    }
  }

  private static String capitalized(String text) {
    return text.isEmpty() ? text : Character.toUpperCase(text.charAt(0)) + text.substring(1);
  }

  /** The values of the flags given for these keys ({@code null}: every key), in table order. */
  static Map<String, Object> given(CommandSpec spec, List<String> keys) {
    Map<String, Object> values = new LinkedHashMap<>();
    CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
    for (Scenario.Key key : Scenario.keys()) {
      if (keys != null && !keys.contains(key.name())) {
        continue; // a command's own flag of the same name (lab client's --duration) is not a scenario key
      }
      OptionSpec option = spec.findOption("--" + key.name());
      if (option != null && parsed.hasMatchedOption(option)) {
        values.put(key.name(), option.getValue());
      }
    }
    return values;
  }

  /**
   * The simulator's scenario with the flags given (the rest at their defaults), validated by it; a bad value
   * is a usage error naming the flag.
   */
  static Scenario scenario(CommandSpec spec, List<String> keys) {
    try {
      return Scenario.of(given(spec, keys));
    } catch (ScenarioException e) {
      throw new Errors.UsageException("--" + e.getMessage());
    }
  }

  /** For {@code lab server}. */
  static final class Knee implements CommandLine.IModelTransformer {
    @Override
    public CommandSpec transform(CommandSpec command) {
      return add(command, KNEE);
    }
  }

  /** For {@code lab client}. */
  static final class Fleet implements CommandLine.IModelTransformer {
    @Override
    public CommandSpec transform(CommandSpec command) {
      return add(command, FLEET);
    }
  }

  /** For {@code lab demo}. */
  static final class KneeAndFleet implements CommandLine.IModelTransformer {
    @Override
    public CommandSpec transform(CommandSpec command) {
      return add(add(command, FLEET), KNEE);
    }
  }
}
