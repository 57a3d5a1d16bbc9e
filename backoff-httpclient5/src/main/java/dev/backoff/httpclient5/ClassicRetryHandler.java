package dev.backoff.httpclient5;

import dev.backoff.driver.RetryLoops;
import java.io.IOException;
import java.io.InterruptedIOException;
import org.apache.hc.client5.http.classic.ExecChain;
import org.apache.hc.client5.http.classic.ExecChainHandler;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.HttpException;

/**
 * The classic client's retry element: each request runs on the core's synchronous loop
 * ({@link RetryLoops#sync}) with a {@link ClassicExchange} as its attempt and judge. Stateless and
 * thread-safe.
 */
final class ClassicRetryHandler implements ExecChainHandler {
  private final HttpClient5Retry owner;

  ClassicRetryHandler(HttpClient5Retry owner) {
    this.owner = owner;
  }

  @Override
  public ClassicHttpResponse execute(ClassicHttpRequest request, ExecChain.Scope scope, ExecChain chain)
      throws IOException, HttpException {
    ClassicExchange exchange = new ClassicExchange(owner, request, scope, chain);
    try {
      return exchange.bounded(RetryLoops.sync(owner.syncExecutor(), exchange, exchange));
    } catch (IOException | HttpException | RuntimeException e) {
      throw e;
    } catch (InterruptedException e) {
      // Interrupted while waiting to retry; the loop set the thread's flag again. HttpClient's own retry
      // answers the same way: its callers expect I/O exceptions only.
      InterruptedIOException interrupted = new InterruptedIOException("interrupted while waiting to retry");
      interrupted.initCause(e);
      throw interrupted;
    } catch (Exception e) {
      throw new IOException(e); // proceed throws nothing else; kept for the compiler
    } finally {
      exchange.end();
    }
  }

  @Override
  public String toString() {
    return HttpClient5Retry.HANDLER_NAME + " (classic)";
  }
}
