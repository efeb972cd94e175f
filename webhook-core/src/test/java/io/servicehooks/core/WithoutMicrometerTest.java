package io.servicehooks.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** Micrometer is optional: the core must run with no Micrometer class anywhere. */
final class WithoutMicrometerTest {

  /** Runs inside a class loader that cannot see Micrometer. */
  public static final class Probe implements Supplier<String> {
    @Override
    public String get() {
      WebhookConsumer consumer =
          WebhookConsumer.builder().consumerSecrets("s").on("post.create", e -> {}).build();
      String json = Fixtures.envelope("1", "post.create");
      int crc = consumer.handle(WebhookRequest.get("crc_token=abc")).join().status();
      int delivery = consumer.handle(Fixtures.signed("s", json)).join().status();
      // The dedup paths that count (running elsewhere, fail closed) record nothing here.
      TestStore store = new TestStore(true);
      store.claimOverride = key -> TestStore.failure("down");
      WebhookConsumer failing =
          WebhookConsumer.builder().consumerSecrets("s").deduplicator(store).build();
      int unavailable = failing.handle(Fixtures.signed("s", json)).join().status();
      return crc + "," + delivery + "," + unavailable;
    }
  }

  @Test
  void consumer_withoutMicrometerOnClassPath_works() throws Exception {
    try (URLClassLoader loader = classLoaderWithout("micrometer")) {
      assertThatThrownBy(() -> loader.loadClass("io.micrometer.core.instrument.MeterRegistry"))
          .isInstanceOf(ClassNotFoundException.class);
      @SuppressWarnings("unchecked")
      Supplier<String> probe =
          (Supplier<String>) loader.loadClass(Probe.class.getName()).getConstructor().newInstance();
      assertThat(probe.get()).isEqualTo("200,200,503");
    }
  }

  private static URLClassLoader classLoaderWithout(String excluded) throws Exception {
    String classPath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<URL> urls = new ArrayList<>();
    for (String entry : classPath.split(File.pathSeparator)) {
      if (!entry.isBlank() && !entry.contains(excluded)) {
        urls.add(new File(entry).toURI().toURL());
      }
    }
    assertThat(urls).extracting(URL::toString).noneMatch(u -> u.contains(excluded));
    return new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
  }
}
