package dev.backoff.lab;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * How a lab run learns the server's state each second: directly from an in-process {@link LabServer}, or
 * over HTTP from a lab server's {@code /admin/stats}. Implementations are thread-safe.
 */
interface ServerProbe {
  /**
   * Reads the server's state now: its stats with the peak concurrency since the previous read, or null if
   * it did not answer (see {@link #unreachableState()}).
   */
  LabServer.Stats read();

  /** What a failed read means for this probe. */
  default LabSample.ServerState unreachableState() {
    return LabSample.ServerState.UNREACHABLE;
  }

  /** Reads an in-process server. */
  static ServerProbe of(LabServer server) {
    return server::statsForInterval;
  }

  /** Asks nobody: the server's state is unknown. */
  static ServerProbe none() {
    return new ServerProbe() {
      @Override
      public LabServer.Stats read() {
        return null;
      }

      @Override
      public LabSample.ServerState unreachableState() {
        return LabSample.ServerState.UNKNOWN;
      }
    };
  }

  /**
   * Asks a lab server's {@code /admin/stats} at {@code statsUri}, waiting at most {@code timeout}: a server
   * stopped with SIGSTOP does not answer, which shows as {@link LabSample.ServerState#UNREACHABLE}.
   */
  static ServerProbe remote(URI statsUri, Duration timeout) {
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(timeout).build();
    HttpRequest request = HttpRequest.newBuilder(statsUri).timeout(timeout).GET().build();
    return () -> {
      try {
        HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
        return response.statusCode() == 200 ? RemoteStats.parse(response.body()) : null;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      } catch (java.io.IOException e) {
        return null;
      }
    };
  }
}
