package dev.backoff.spring.boot;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Beans whose methods fail a scripted number of times before succeeding, for the annotation tests. */
final class Beans {
  private Beans() {}

  /** A service that fails {@code failures} times with an IOException, counting calls. */
  static class Flaky {
    final AtomicInteger calls = new AtomicInteger();
    volatile int failures;

    Flaky(int failures) {
      this.failures = failures;
    }

    /** The calls so far (through the proxy: a proxy's own fields are not the bean's). */
    public int calls() {
      return calls.get();
    }

    /** Fails the calls up to number {@code failures}, counted from the first. */
    public void failUpTo(int failures) {
      this.failures = failures;
    }

    boolean fail() {
      return calls.incrementAndGet() <= failures;
    }

    @BackoffRetry("orders")
    public String sync() throws IOException {
      if (fail()) {
        throw new IOException("attempt " + calls.get() + " failed");
      }
      return "ok after " + calls.get();
    }

    @BackoffRetry(value = "orders", maxAttempts = 5)
    public String syncFiveAttempts() throws IOException {
      return sync0();
    }

    @BackoffRetry(value = "orders", abortOn = IllegalStateException.class)
    public String aborting() {
      calls.incrementAndGet();
      throw new IllegalStateException("never retried");
    }

    @BackoffRetry("orders")
    public CompletableFuture<String> future() {
      if (fail()) {
        return CompletableFuture.failedFuture(new IOException("attempt " + calls.get() + " failed"));
      }
      return CompletableFuture.completedFuture("ok after " + calls.get());
    }

    @BackoffRetry("orders")
    public CompletionStage<String> stageThrowing() throws IOException {
      if (fail()) {
        throw new IOException("thrown, not returned, by attempt " + calls.get());
      }
      return CompletableFuture.completedFuture("ok after " + calls.get());
    }

    @BackoffRetry("orders")
    public Mono<String> mono() {
      return Mono.defer(() -> fail() ? Mono.error(new IOException("attempt " + calls.get() + " failed"))
          : Mono.just("ok after " + calls.get()));
    }

    @BackoffRetry("orders")
    public Flux<String> flux() {
      return Flux.defer(() -> fail() ? Flux.error(new IOException("attempt " + calls.get() + " failed"))
          : Flux.just("a", "b"));
    }

    /** Calls its own annotated method: not through the proxy, so not retried. */
    public String selfInvocation() throws IOException {
      return sync();
    }

    public String plain() throws IOException {
      return sync0();
    }

    private String sync0() throws IOException {
      if (fail()) {
        throw new IOException("attempt " + calls.get() + " failed");
      }
      return "ok after " + calls.get();
    }
  }

  /** An interface whose method carries the annotation. */
  interface Greeter {
    @BackoffRetry("orders")
    String greet(String name) throws IOException;
  }

  /** Implements {@link Greeter} without an annotation of its own. */
  static class FlakyGreeter implements Greeter {
    final AtomicInteger calls = new AtomicInteger();

    @Override
    public String greet(String name) throws IOException {
      if (calls.incrementAndGet() < 3) {
        throw new IOException("not yet");
      }
      return "hello " + name;
    }
  }

  /** Every public method retried: the annotation is on the type. */
  @BackoffRetry("orders")
  static class TypeAnnotated {
    final AtomicInteger calls = new AtomicInteger();

    public String call() throws IOException {
      if (calls.incrementAndGet() < 2) {
        throw new IOException("first fails");
      }
      return "ok";
    }
  }

  static class UnknownPolicy {
    @BackoffRetry("no-such-policy")
    public String call() {
      return "never";
    }
  }

  static class PublisherMethod {
    @BackoffRetry("orders")
    public org.reactivestreams.Publisher<String> stream() {
      return Flux.just("a");
    }
  }

  static class BadOverride {
    @BackoffRetry(value = "orders", maxElapsed = "10")
    public String call() {
      return "never";
    }
  }
}
