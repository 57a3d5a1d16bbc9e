package dev.backoff.sim;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.util.MinimalPrettyPrinter;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/**
 * The one JSON writer of the simulator, the lab and the command line: Jackson's streaming generator, compact,
 * with every string escaped by Jackson (quotes, backslashes, control characters) plus {@code <}, {@code >}
 * and {@code &}, so that JSON embedded in an HTML {@code <script>} can never close it. Numbers are written
 * from exact decimal text ({@link #decimal}), never {@code Double.toString} (whose output changed in JDK 19),
 * so every JDK writes the same bytes. Not thread-safe: one writer per document.
 */
public final class Json {
  private static final JsonFactory FACTORY = new JsonFactory();
  private static final CharacterEscapes ESCAPES = new HtmlSafeEscapes();

  private final StringWriter text = new StringWriter();
  private final JsonGenerator generator;

  private Json(boolean topLevelArraysOnLines) {
    try {
      generator = FACTORY.createGenerator(text);
      generator.setCharacterEscapes(ESCAPES);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (topLevelArraysOnLines) {
      generator.setPrettyPrinter(new LinesPrinter());
    }
  }

  /** A compact writer: no whitespace at all. */
  public static Json compact() {
    return new Json(false);
  }

  /**
   * A writer that puts each array element on its own line and ends an outermost array on one
   * ({@code [\n{…},\n{…}\n]}), as the simulator's JSON output has always looked, for line-oriented tools. Use
   * it for documents whose arrays hold objects.
   */
  public static Json lines() {
    return new Json(true);
  }

  /** A JSON string literal, escaped as every string this writer writes. */
  public static String quote(String value) {
    Json json = compact();
    return json.string(value).toString();
  }

  /** Starts an object. */
  public Json object() {
    return io(() -> generator.writeStartObject());
  }

  /** Ends the current object. */
  public Json endObject() {
    return io(() -> generator.writeEndObject());
  }

  /** Starts an array. */
  public Json array() {
    return io(() -> generator.writeStartArray());
  }

  /** Ends the current array. */
  public Json endArray() {
    return io(() -> generator.writeEndArray());
  }

  /** A field name; its value follows. */
  public Json field(String name) {
    return io(() -> generator.writeFieldName(name));
  }

  /** A string, or null. */
  public Json string(String value) {
    return io(() -> {
      if (value == null) {
        generator.writeNull();
      } else {
        generator.writeString(value);
      }
    });
  }

  /** A whole number. */
  public Json number(long value) {
    return io(() -> generator.writeNumber(value));
  }

  /** A whole number, or null. */
  public Json number(Integer value) {
    return value == null ? nullValue() : number((long) value);
  }

  /** A number already formatted as JSON number text (such as {@code 0.25}), written as is. */
  public Json numberText(String value) {
    return io(() -> generator.writeNumber(value));
  }

  /** {@code value} rounded half away from zero to {@code decimals} places; NaN and infinities as null. */
  public Json decimal(double value, int decimals) {
    return Double.isFinite(value) ? numberText(Values.format(value, decimals)) : nullValue();
  }

  /** A boolean, or null. */
  public Json bool(Boolean value) {
    return value == null ? nullValue() : io(() -> generator.writeBoolean(value));
  }

  /** A null. */
  public Json nullValue() {
    return io(() -> generator.writeNull());
  }

  /** JSON text already written by this class (a nested document), as a value. */
  public Json raw(String json) {
    return io(() -> generator.writeRawValue(json));
  }

  /** The document so far (everything opened must be closed). */
  @Override
  public String toString() {
    io(() -> generator.flush());
    return text.toString();
  }

  private interface Step {
    void run() throws IOException;
  }

  private Json io(Step step) {
    try {
      step.run();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringWriter does not fail
    }
    return this;
  }

  /** Jackson's standard escapes plus {@code <}, {@code >} and {@code &} as {@code \\uXXXX}. */
  private static final class HtmlSafeEscapes extends CharacterEscapes {
    private static final long serialVersionUID = 1L;
    private final int[] escapes;

    HtmlSafeEscapes() {
      escapes = CharacterEscapes.standardAsciiEscapesForJSON();
      escapes['<'] = CharacterEscapes.ESCAPE_STANDARD;
      escapes['>'] = CharacterEscapes.ESCAPE_STANDARD;
      escapes['&'] = CharacterEscapes.ESCAPE_STANDARD;
    }

    @Override
    public int[] getEscapeCodesForAscii() {
      return escapes;
    }

    @Override
    public SerializableString getEscapeSequence(int ch) {
      return null;
    }
  }

  /** Compact, except that each array element starts a line, and an outermost array ends on one. */
  private static final class LinesPrinter extends MinimalPrettyPrinter {
    private static final long serialVersionUID = 1L;
    private int arrayDepth;

    @Override
    public void writeStartArray(JsonGenerator g) throws IOException {
      arrayDepth++;
      super.writeStartArray(g);
    }

    @Override
    public void beforeArrayValues(JsonGenerator g) throws IOException {
      g.writeRaw('\n');
    }

    @Override
    public void writeArrayValueSeparator(JsonGenerator g) throws IOException {
      g.writeRaw(",\n");
    }

    @Override
    public void writeEndArray(JsonGenerator g, int nrOfValues) throws IOException {
      if (arrayDepth == 1 && nrOfValues > 0) {
        g.writeRaw('\n');
      }
      arrayDepth--;
      super.writeEndArray(g, nrOfValues);
    }
  }
}
