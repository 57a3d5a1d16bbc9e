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

  /** A collaborator injected into the beans below, to show where a call runs (the bean or its proxy). */
  static final class Prefix {
    final String text = "hello ";
  }

  static class FinalMethod {
    private final Prefix prefix;

    FinalMethod(Prefix prefix) {
      this.prefix = prefix;
    }

    @BackoffRetry("orders")
    public final String call(String name) {
      return prefix.text + name; // on the proxy, prefix is null
    }
  }

  /** A final method under a type annotation: the annotation promises retries the proxy cannot give it. */
  @BackoffRetry("orders")
  static class TypeAnnotatedFinal {
    public final String call() {
      return "never retried";
    }
  }

  static class PrivateMethod {
    @BackoffRetry("orders")
    private String call() {
      return "never retried";
    }

    public String caller() {
      return call();
    }
  }

  /** A bad annotation on a later method than a good one: still found at startup. */
  static class GoodThenBad {
    @BackoffRetry("orders")
    public String a() {
      return "fine";
    }

    @BackoffRetry("no-such-policy")
    public String z() {
      return "never";
    }
  }

  /** Non-public methods that class proxies intercept, reached from outside the bean (from this package). */
  static class NonPublic {
    final AtomicInteger calls = new AtomicInteger();

    public int calls() {
      return calls.get();
    }

    @BackoffRetry("orders")
    String packagePrivate() throws IOException {
      if (calls.incrementAndGet() % 2 == 1) {
        throw new IOException("odd call fails");
      }
      return "ok after " + calls.get();
    }

    @BackoffRetry("orders")
    protected String isProtected() throws IOException {
      return packagePrivate();
    }

    /** retryOn adds IllegalStateException to the policy's IOException; it does not replace it. */
    @BackoffRetry(value = "orders", retryOn = IllegalStateException.class)
    public String addedRetryOn() throws IOException {
      int call = calls.incrementAndGet();
      if (call == 1) {
        throw new IOException("the policy's type, still retried");
      }
      if (call == 2) {
        throw new IllegalStateException("the annotation's type, retried too");
      }
      return "ok after " + call;
    }
  }
}
