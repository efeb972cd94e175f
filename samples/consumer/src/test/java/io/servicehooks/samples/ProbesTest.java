package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.testsupport.TestDatabase;
import io.undertow.Undertow;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The standalone consumer's {@code /health/live} and {@code /health/ready}; in durable mode
 * readiness follows the inbox database (a real one, and a real driver finding nothing at a closed
 * port), checked at most once a second (a fake clock moves it).
 */
final class ProbesTest {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  private final AtomicBoolean cut = new AtomicBoolean();
  private final AtomicLong now = new AtomicLong();

  private DataSource switching() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    PGSimpleDataSource nowhere = new PGSimpleDataSource();
    nowhere.setURL("jdbc:postgresql://127.0.0.1:" + port + "/test");
    nowhere.setConnectTimeout(1);
    DataSource real = TestDatabase.dataSource();
    return (DataSource)
        Proxy.newProxyInstance(
            getClass().getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              try {
                return method.invoke(cut.get() ? nowhere : real, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  @Test
  void ready_durable_followsTheDatabaseAtMostOnceASecond_liveStaysUp() throws Exception {
    Probes probes = new Probes(switching(), now::get);
    Undertow server =
        Undertow.builder()
            .addHttpListener(0, "127.0.0.1")
            .setHandler(
                io.undertow.Handlers.path()
                    .addExactPath("/health/live", probes.live())
                    .addExactPath("/health/ready", probes.ready()))
            .build();
    server.start();
    try {
      String base =
          "http://127.0.0.1:"
              + ((InetSocketAddress) server.getListenerInfo().get(0).getAddress()).getPort();
      assertThat(get(base + "/health/ready").statusCode()).isEqualTo(200);

      cut.set(true);
      assertThat(get(base + "/health/ready").statusCode())
          .as("checked a moment ago")
          .isEqualTo(200);
      now.addAndGet(Probes.CHECK_EVERY_NANOS);
      HttpResponse<String> down = get(base + "/health/ready");
      assertThat(down.statusCode()).isEqualTo(503);
      assertThat(down.body()).contains("the inbox database does not answer");
      assertThat(get(base + "/health/live").statusCode()).isEqualTo(200);

      cut.set(false);
      now.addAndGet(Probes.CHECK_EVERY_NANOS);
      assertThat(get(base + "/health/ready").statusCode()).isEqualTo(200);

      probes.stopping();
      HttpResponse<String> stopping = get(base + "/health/ready");
      assertThat(stopping.statusCode()).isEqualTo(503);
      assertThat(stopping.body()).contains("stopping");
    } finally {
      server.stop();
    }
  }

  @Test
  void consumer_servesLiveAndReadyBesideHealth() throws Exception {
    StandaloneConsumer.Settings settings =
        new StandaloneConsumer.Settings(
            List.of("sec"), "127.0.0.1", 0, "/webhooks", false, false, 0, 0);
    try (StandaloneConsumer consumer = StandaloneConsumer.start(settings, b -> {})) {
      String base = "http://127.0.0.1:" + consumer.port();
      for (String path : List.of("/health", "/health/live", "/health/ready")) {
        HttpResponse<String> answer = get(base + path);
        assertThat(answer.statusCode()).as(path).isEqualTo(200);
        assertThat(answer.body())
            .as(path)
            .isEqualTo(
                path.equals("/health")
                    ? "{\"status\":\"UP\",\"crc_last_answered\":null}" // no CRC check yet
                    : "{\"status\":\"UP\"}");
      }
    }
  }

  private static HttpResponse<String> get(String url) throws Exception {
    return CLIENT.send(
        HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
