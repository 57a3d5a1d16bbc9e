package dev.backoff.httpclient5;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.hc.client5.http.async.AsyncExecCallback;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.nio.AsyncDataConsumer;
import org.apache.hc.core5.http.nio.CapacityChannel;

/**
 * The body of a response that may be retried, read ahead before the decision: at most the read-ahead limit
 * is asked for through flow control, so the connection stops delivering there and nothing beyond a small,
 * fixed slack (what the client had in flight before the window closed) is ever held. Then one of:
 * <ul>
 *   <li>{@link #discard}: nobody will read the response (a retry follows, or a hedged call let go of it for
 *       good); the bytes are dropped and later ones ignored;
 *   <li>{@link #handOver}: the call ends with this response; the caller's consumer gets the bytes read ahead,
 *       then (flow control reopened to it) the rest, the end of the stream and the exchange's completion.
 * </ul>
 * Thread-safe: the I/O thread feeds it while the loop's thread decides; every transition holds its lock.
 */
final class ReadAhead implements AsyncDataConsumer {
  /**
   * What may arrive beyond the limit before flow control takes hold: the client's initial window (64 KiB
   * by default) and one read. More than this is a failure, never an unbounded buffer.
   */
  static final int SLACK = 256 * 1024;

  private static final int READING = 0;
  private static final int PAUSED = 1;
  private static final int FORWARDING = 2;
  private static final int DISCARDED = 3;

  private final AsyncAttemptState attempt;
  private final int limit;
  private byte[] buffer = new byte[0];
  private int length;
  private int state = READING;
  private boolean ended;
  private boolean completed;
  private Exception failure;
  private List<? extends Header> trailers;
  private CapacityChannel channel;
  private AsyncDataConsumer target;
  private AsyncExecCallback callback;

  ReadAhead(AsyncAttemptState attempt, int limit) {
    this.attempt = attempt;
    this.limit = limit;
  }

  /** With a limit of zero the decision comes at once, before any byte. */
  void startReading() {
    if (limit == 0) {
      synchronized (this) {
        state = PAUSED;
      }
      attempt.limitReached();
    }
  }

  @Override
  public void updateCapacity(CapacityChannel capacityChannel) throws IOException {
    AsyncDataConsumer forwardTo;
    synchronized (this) {
      channel = capacityChannel;
      if (state == READING) {
        int wanted = limit - length;
        if (wanted > 0) {
          capacityChannel.update(wanted);
        }
        return;
      }
      if (state != FORWARDING) {
        return; // paused: no more until the decision; discarded: the connection is being closed
      }
      forwardTo = target;
    }
    forwardTo.updateCapacity(capacityChannel);
  }

  @Override
  public void consume(ByteBuffer src) throws IOException {
    boolean reached = false;
    synchronized (this) {
      if (state == FORWARDING) {
        target.consume(src);
        return;
      }
      if (state == DISCARDED) {
        src.position(src.limit());
        return;
      }
      int n = src.remaining();
      if ((long) length + n > (long) limit + SLACK) {
        throw new IOException("the server sent " + ((long) length + n) + " bytes of a body the client asked "
            + limit + " of (read-ahead limit), beyond what flow control allows");
      }
      if (length + n > buffer.length) {
        int grown = (int) Math.min(Math.max((long) buffer.length * 2, (long) length + n), (long) limit + SLACK);
        buffer = java.util.Arrays.copyOf(buffer, grown);
      }
      src.get(buffer, length, n);
      length += n;
      if (state == READING && length >= limit) {
        state = PAUSED;
        reached = true;
      }
    }
    if (reached) {
      attempt.limitReached(); // outside the lock: the loop may decide on this thread
    }
  }

  @Override
  public void streamEnd(List<? extends Header> endTrailers) throws HttpException, IOException {
    AsyncDataConsumer forwardTo;
    synchronized (this) {
      if (state == DISCARDED) {
        return;
      }
      if (state != FORWARDING) {
        ended = true;
        trailers = endTrailers;
        return;
      }
      forwardTo = target;
    }
    forwardTo.streamEnd(endTrailers);
  }

  @Override
  public void releaseResources() {
    AsyncDataConsumer forwardTo;
    synchronized (this) {
      forwardTo = state == FORWARDING ? target : null;
    }
    if (forwardTo != null) {
      forwardTo.releaseResources();
    }
  }

  /** Whether the whole body was read ahead (it ended within the limit) and is still held here. */
  synchronized boolean endedAhead() {
    return ended && (state == READING || state == PAUSED);
  }

  /** The exchange completed after the stage did (the limit was reached first). */
  void exchangeCompleted() {
    AsyncExecCallback to;
    synchronized (this) {
      completed = true;
      to = state == FORWARDING ? callback : null;
    }
    if (to != null) {
      to.completed();
    }
  }

  /** The exchange failed after the stage completed. */
  void exchangeFailed(Exception cause) {
    AsyncExecCallback to;
    synchronized (this) {
      failure = cause;
      to = state == FORWARDING ? callback : null;
    }
    if (to != null) {
      to.failed(cause);
    }
  }

  /**
   * Drops the bytes read ahead and ignores what follows. Returns true if the exchange is not over (the body
   * did not end, or the exchange neither completed nor failed): its connection must be closed, not read on.
   */
  synchronized boolean discard() {
    if (state == DISCARDED || state == FORWARDING) {
      return false;
    }
    boolean open = !(ended && completed) && failure == null;
    state = DISCARDED;
    buffer = null;
    return open;
  }

  /** The call ends with this response: the caller's consumer gets everything, in order. */
  void handOver(AsyncDataConsumer consumer, AsyncExecCallback to) throws HttpException, IOException {
    synchronized (this) {
      if (state == DISCARDED) {
        return;
      }
      byte[] read = buffer;
      int readLength = length;
      buffer = null;
      if (consumer != null && readLength > 0) {
        consumer.consume(ByteBuffer.wrap(read, 0, readLength));
      }
      if (ended) {
        if (consumer != null) {
          consumer.streamEnd(trailers);
        }
      }
      if (failure != null) {
        state = DISCARDED;
        to.failed(failure);
        return;
      }
      if (ended && completed) {
        state = DISCARDED;
        to.completed();
        return;
      }
      // The rest is still to come: from now on it goes to the caller's consumer, at its pace.
      state = FORWARDING;
      target = consumer != null ? consumer : new Discarding();
      callback = to;
      if (ended) {
        target = new Discarding(); // the stream ended already; only completion is still to come
      }
      if (channel != null) {
        target.updateCapacity(channel);
      }
    }
  }

  /** The consumer for a body the caller's callback did not want (it returned no consumer). */
  private static final class Discarding implements AsyncDataConsumer {
    @Override
    public void updateCapacity(CapacityChannel capacityChannel) throws IOException {
      capacityChannel.update(Integer.MAX_VALUE);
    }

    @Override
    public void consume(ByteBuffer src) {
      src.position(src.limit());
    }

    @Override
    public void streamEnd(List<? extends Header> endTrailers) {}

    @Override
    public void releaseResources() {}
  }
}
