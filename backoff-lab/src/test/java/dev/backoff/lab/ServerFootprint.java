package dev.backoff.lab;

import dev.backoff.sim.KneeLatency;
import com.sun.net.httpserver.HttpServer;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Measures what holding N concurrent delayed requests costs a server (threads, heap, resident memory), for
 * docs/lab.md: the lab's server (Netty on one event loop, handlers return at once, a ticker answers later)
 * against the JDK's HttpServer with a thread per request (a cached pool and a sleeping handler), and, on
 * JDK 21+, a virtual thread per request. Not a test: run it by hand, one variant per JVM.
 *
 * <pre>
 * java -cp ... dev.backoff.lab.ServerFootprint lab|threads|virtual [N]
 * </pre>
 */
public final class ServerFootprint {
  private ServerFootprint() {}

  public static void main(String[] args) throws Exception {
    String variant = args[0];
    int requests = args.length > 1 ? Integer.parseInt(args[1]) : 3000;
    Duration hold = Duration.ofSeconds(30);
    System.gc();
    Thread.sleep(500);
    int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
    long heapBefore = usedHeap();
    long rssBefore = rssKiB();
    AtomicInteger inService = new AtomicInteger();
    AutoCloseable server;
    URI uri;
    if (variant.equals("lab")) {
      LabServer lab = LabServer.builder().latency(KneeLatency.of(hold, 1_000_000, 1, 1)).maxConnections(requests + 10)
          .start();
      server = lab;
      uri = lab.apiUri();
    } else {
      ExecutorService executor = variant.equals("virtual")
          ? (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null)
          : Executors.newCachedThreadPool();
      HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4096);
      http.createContext("/api", exchange -> {
        inService.incrementAndGet();
        try {
          Thread.sleep(hold.toMillis()); // a blocking handler: one thread per request in service
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        byte[] ok = "OK".getBytes(StandardCharsets.US_ASCII);
        exchange.sendResponseHeaders(200, ok.length);
        exchange.getResponseBody().write(ok);
        exchange.close();
        inService.decrementAndGet();
      });
      http.setExecutor(executor);
      http.start();
      server = () -> {
        http.stop(0);
        executor.shutdownNow();
      };
      uri = URI.create("http://127.0.0.1:" + http.getAddress().getPort() + "/api");
    }
    // The client side costs the same in every variant: an async client on two threads.
    HttpClient client = HttpClient.newBuilder().executor(Executors.newFixedThreadPool(2)).build();
    List<CompletableFuture<HttpResponse<Void>>> calls = new ArrayList<>();
    for (int i = 0; i < requests; i++) {
      calls.add(client.sendAsync(HttpRequest.newBuilder(uri).timeout(hold.plusSeconds(30)).build(),
          HttpResponse.BodyHandlers.discarding()));
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(25).toNanos();
    while (held(server, inService) < requests && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    System.gc();
    Thread.sleep(500);
    System.out.printf("%s: %d requests held (of %d); threads +%d; heap +%d MiB; RSS +%d MiB (java %s)%n", variant,
        held(server, inService), requests, ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore,
        (usedHeap() - heapBefore) >> 20, (rssKiB() - rssBefore) >> 10, System.getProperty("java.version"));
    server.close();
    System.exit(0);
  }

  private static int held(AutoCloseable server, AtomicInteger inService) {
    return server instanceof LabServer lab ? lab.stats().concurrency() : inService.get();
  }

  private static long usedHeap() {
    Runtime runtime = Runtime.getRuntime();
    return runtime.totalMemory() - runtime.freeMemory();
  }

  private static long rssKiB() throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return 0;
  }
}
