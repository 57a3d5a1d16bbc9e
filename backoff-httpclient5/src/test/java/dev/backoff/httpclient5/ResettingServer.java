package dev.backoff.httpclient5;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A raw socket server on loopback that resets (TCP RST, through SO_LINGER 0) the first {@code resets}
 * connections after reading the request head, then answers {@code 200 ok}. For tests only.
 */
final class ResettingServer implements AutoCloseable {
  private final ServerSocket socket;
  private final AtomicInteger connections = new AtomicInteger();

  ResettingServer(int resets) throws IOException {
    socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(() -> {
      while (!socket.isClosed()) {
        try (Socket connection = socket.accept()) {
          int number = connections.incrementAndGet();
          readHead(connection.getInputStream());
          if (number <= resets) {
            connection.setSoLinger(true, 0); // close() now sends RST instead of FIN
          } else {
            OutputStream out = connection.getOutputStream();
            out.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
                .getBytes(StandardCharsets.US_ASCII));
            out.flush();
          }
        } catch (IOException e) {
          // closed: the loop ends
        }
      }
    }, "resetting-server");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  private static void readHead(InputStream in) throws IOException {
    int matched = 0;
    byte[] end = {'\r', '\n', '\r', '\n'};
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        return;
      }
      matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
    }
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + socket.getLocalPort() + "/");
  }

  int connections() {
    return connections.get();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
