package reactor.netty.http.client;

import java.io.IOException;

/**
 * A stand-in with the name of Reactor Netty's exception for a connection closed before (or while) the
 * response arrived, so the rules' name-based recognition is tested without Reactor Netty on the class path.
 * Like the real one, a plain {@link IOException} subclass whose message alone would not say "lost".
 */
public final class PrematureCloseException extends IOException {
  private static final long serialVersionUID = 1L;

  /** The exception with this message. */
  public PrematureCloseException(String message) {
    super(message);
  }
}
