package dev.backoff.examples.spring;

import dev.backoff.testing.ScriptedHttpServer;
import dev.backoff.testing.ScriptedHttpServer.Response;
import java.io.IOException;
import java.io.UncheckedIOException;

/** The inventory system for the tests: a real HTTP server on loopback, restarting for its first two requests. */
final class LoopbackWarehouse {
  private LoopbackWarehouse() {}

  /** A server answering 503 twice, then 200 with the stock level 42 to every request. */
  static ScriptedHttpServer restartingTwice() {
    try {
      return new ScriptedHttpServer(Response.of(503, "restarting"), Response.of(503, "restarting"), Response.of(200, "42"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
