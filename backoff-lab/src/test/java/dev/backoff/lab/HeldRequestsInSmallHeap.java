package dev.backoff.lab;

import dev.backoff.testing.FakeClock;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Run in a forked JVM with a small heap by {@link LabServerMemoryTest}: a lab server holds N requests from
 * raw sockets (half of whose clients then hang up) on a clock that never moves, so none is answered.
 * Prints {@code held N abandoned M} and exits 0, or dies of {@link OutOfMemoryError}.
 */
final class HeldRequestsInSmallHeap {
  private HeldRequestsInSmallHeap() {}

  public static void main(String[] args) throws Exception {
    int requests = Integer.parseInt(args[0]);
    byte[] request = "GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: memory-test\r\n\r\n"
        .getBytes(StandardCharsets.US_ASCII);
    try (LabServer server = LabServer.builder().clock(new FakeClock()).maxConnections(requests).start()) {
      List<SocketChannel> clients = new ArrayList<>(requests);
      for (int i = 0; i < requests; i++) {
        SocketChannel channel = SocketChannel.open(new InetSocketAddress("127.0.0.1", server.port()));
        channel.write(ByteBuffer.wrap(request));
        clients.add(channel);
      }
      long deadline = System.nanoTime() + 30_000_000_000L; // a guard against hanging, not a measurement
      while (server.stats().concurrency() < requests && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      for (int i = 0; i < requests / 2; i++) {
        clients.get(i).close();
      }
      while (server.stats().abandoned() < requests / 2 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      System.gc();
      LabServer.Stats stats = server.stats();
      System.out.println("held " + stats.concurrency() + " abandoned " + stats.abandoned());
      for (SocketChannel channel : clients) {
        channel.close();
      }
    }
  }
}
