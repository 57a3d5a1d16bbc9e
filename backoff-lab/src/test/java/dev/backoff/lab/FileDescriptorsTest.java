package dev.backoff.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class FileDescriptorsTest {
  @Test
  void readsTheSoftLimitFromProcLimits() {
    List<String> lines = List.of("Limit                     Soft Limit           Hard Limit           Units",
        "Max cpu time              unlimited            unlimited            seconds",
        "Max open files            1024                 524288               files");
    assertThat(FileDescriptors.parseProcLimits(lines)).hasValue(1024);
    assertThat(FileDescriptors.parseProcLimits(List.of("Max open files  unlimited  unlimited  files")))
        .hasValue(Long.MAX_VALUE);
    assertThat(FileDescriptors.parseProcLimits(List.of("nothing here"))).isEmpty();
  }

  @Test
  void theJvmKnowsItsLimitOnThisPlatform() {
    assertThat(FileDescriptors.limit()).isPresent();
  }

  @Test
  void aNeedAboveTheLimitGetsAMessageNamingItAndTheFix() {
    long limit = FileDescriptors.limit().orElseThrow();
    assertThatThrownBy(() -> FileDescriptors.require(limit, "--clients " + limit))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ulimit -n is " + limit)
        .hasMessageContaining("--clients " + limit);
    FileDescriptors.require(10, "ten sockets");
  }
}
